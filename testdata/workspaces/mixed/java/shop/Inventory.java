package shop;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Inventory keeps the stock of one shop.
 * It is not thread-safe.
 */
@SuppressWarnings("unused")
public class Inventory implements Iterable<Inventory.Item> {
    /** Quantity at or below which an item is low. */
    public static final int LOW_STOCK = 5;

    private final Map<String, Item> items = new java.util.TreeMap<>();

    static {
        System.setProperty("shop.loaded", "true");
    }

    /** One product line. */
    public record Item(String sku, String name, long price, int qty) {}

    /** How well stocked an item is. */
    public enum State {
        IN_STOCK, LOW, SOLD_OUT;

        boolean needsOrder() {
            return this != IN_STOCK;
        }
    }

    /** Something that hears about changes. */
    public interface Listener {
        void changed(Item item);

        default void removed(String sku) {}
    }

    public Inventory() {}

    /**
     * Adds an item.
     *
     * @param item the item
     */
    @Deprecated
    public void add(Item item) {
        items.put(item.sku(), item);
    }

    @Override
    public java.util.Iterator<Item> iterator() {
        return items.values().iterator();
    }

    public static <T extends Comparable<T>> List<T> sorted(
            List<T> xs) {
        List<T> out = new ArrayList<>(xs);
        out.sort(null);
        return out;
    }

    @interface Audited {
        String value() default "";
    }
}
