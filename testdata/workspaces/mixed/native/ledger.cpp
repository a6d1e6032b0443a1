#include "ledger.hpp"

#include <utility>

namespace shop::ledger {

namespace {
int bookings = 0;
}

Ledger::Ledger(std::string name) : name_(std::move(name)) {}

Ledger::~Ledger() = default;

// book appends e and returns its index.
std::size_t Ledger::book(const Entry& e) {
    entries_.push_back(e);
    ++bookings;
    return entries_.size() - 1;
}

Cents Ledger::balance(const std::string& account) const {
    Cents sum = 0;
    for (const auto& e : entries_) {
        if (e.to == account) sum += e.amount;
        if (e.from == account) sum -= e.amount;
    }
    return sum;
}

}  // namespace shop::ledger

int main() {
    shop::ledger::Ledger l("main");
    l.book({"cash", "bank", 100});
    return l.balance("bank") == 100 ? 0 : 1;
}
