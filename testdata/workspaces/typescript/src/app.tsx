import React, { useState } from "react";
import { Item, stateOf, State } from "./store";

type RowProps = { item: Item; onPick?: (sku: string) => void };

/** Row renders one item. */
export function Row({ item, onPick }: RowProps) {
  const state = stateOf(item);
  return (
    <tr className={state === State.Low ? "low" : ""} onClick={() => onPick?.(item.sku)}>
      <td>{item.name}</td>
      <td>{item.qty}</td>
    </tr>
  );
}

export const Table: React.FC<{ items: Item[] }> = ({ items }) => {
  const [picked, setPicked] = useState<string | null>(null);
  return (
    <table>
      <tbody>
        {items.map((it) => (
          <Row key={it.sku} item={it} onPick={setPicked} />
        ))}
      </tbody>
      {picked && <caption>{picked}</caption>}
    </table>
  );
};

export default class App extends React.Component<{ items: Item[] }> {
  render() {
    return <Table items={this.props.items} />;
  }
}
