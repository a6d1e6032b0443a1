// ledger.hpp - a double-entry ledger.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace shop {
namespace ledger {

/// An amount in cents.
using Cents = long long;

/// One booking: money moves from one account to another.
struct Entry {
    std::string from, to;
    Cents amount;
};

/// Ledger records entries and answers balances.
class Ledger {
public:
    Ledger() = default;
    explicit Ledger(std::string name);
    ~Ledger();

    /// Record an entry; returns its index.
    std::size_t book(const Entry& e);
    Cents balance(const std::string& account) const;

    template <typename F>
    void each(F fn) const {
        for (const auto& e : entries_) fn(e);
    }

    static const int kVersion = 2;

private:
    std::string name_;
    std::vector<Entry> entries_;
};

template <typename T>
T clamp(T v, T lo, T hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

enum class Side { Debit, Credit };

}  // namespace ledger
}  // namespace shop
