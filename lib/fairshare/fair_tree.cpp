// SPDX-License-Identifier: GPL-2.0-or-later
#include "fairshare/fair_tree.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace tune {

FairTree::FairTree(const std::vector<Association>& assocs) {
  nodes_.push_back({"root", "", 1, {}});
  accounts_["root"] = 0;
  std::vector<int> parent_of(1, -1);
  for (const auto& a : assocs)  // every account first: a parent may come after its child
    if (a.user.empty() && !accounts_.count(a.account)) {
      accounts_[a.account] = static_cast<int>(nodes_.size());
      nodes_.push_back({a.account, "", a.shares, {}});
      parent_of.push_back(-1);
    }
  for (const auto& a : assocs) {
    if (!a.user.empty() || a.account == "root") continue;
    const int n = accounts_.at(a.account);
    if (parent_of[n] >= 0) continue;  // a second row for the account: the first wins
    const auto p = accounts_.find(a.parent);
    const int parent = p == accounts_.end() ? 0 : p->second;
    for (int up = parent; up >= 0; up = parent_of[up])
      if (up == n) throw std::invalid_argument("account '" + a.account + "' is its own ancestor");
    parent_of[n] = parent;
    nodes_[parent].children.push_back(n);
  }
  for (std::size_t n = 1; n < parent_of.size(); ++n)  // named only as a parent's child's parent
    if (parent_of[n] < 0) nodes_[0].children.push_back(static_cast<int>(n));
  for (const auto& a : assocs)
    if (!a.user.empty()) {
      const std::size_t before = users_;
      ensure(a.account, a.user);
      if (users_ > before) nodes_.back().shares = a.shares;
    }
}

int FairTree::account_node(const std::string& account) {
  if (const auto it = accounts_.find(account); it != accounts_.end()) return it->second;
  const int n = static_cast<int>(nodes_.size());
  accounts_[account] = n;
  nodes_.push_back({account, "", 1, {}});
  nodes_[0].children.push_back(n);
  return n;
}

void FairTree::ensure(const std::string& account, const std::string& user) {
  const int a = account_node(account);
  for (int c : nodes_[a].children)
    if (nodes_[c].user == user) return;
  nodes_.push_back({account, user, 1, {}});
  nodes_[a].children.push_back(static_cast<int>(nodes_.size() - 1));
  ++users_;
}

double FairTree::usage_of(int n, const std::map<AssocKey, double>& usage, std::vector<double>& memo) const {
  const Node& node = nodes_[n];
  double u = 0;
  if (!node.user.empty()) {
    const auto it = usage.find({node.account, node.user});
    u = it == usage.end() ? 0 : it->second;
  } else {
    for (int c : node.children) u += usage_of(c, usage, memo);
  }
  return memo[n] = u;
}

std::map<AssocKey, double> FairTree::factors(const std::map<AssocKey, double>& usage) const {
  std::vector<double> u(nodes_.size(), 0);
  usage_of(0, usage, u);
  std::map<AssocKey, double> out;
  std::size_t rank = users_, next = users_;
  rank_children(0, false, u, rank, next, out);
  return out;
}

// fair_tree.c's _calc_tree_fs over one node's children.
void FairTree::rank_children(int parent, bool tied_in, const std::vector<double>& u, std::size_t& rank,
                             std::size_t& next, std::map<AssocKey, double>& out) const {
  const auto& kids = nodes_[parent].children;
  const double level_shares =
      std::accumulate(kids.begin(), kids.end(), 0.0, [&](double s, int c) { return s + nodes_[c].shares; });
  std::vector<std::pair<double, int>> lf;  // (S / U, node)
  for (int c : kids) {
    const double s = level_shares > 0 ? nodes_[c].shares / level_shares : 0;
    const double share_of_parent = u[parent] > 0 ? u[c] / u[parent] : 0;
    lf.emplace_back(s == 0                 ? 0
                    : share_of_parent == 0 ? std::numeric_limits<double>::infinity()
                                           : s / share_of_parent,
                    c);
  }
  // Highest first; on a tie users before accounts.
  std::stable_sort(lf.begin(), lf.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    return !nodes_[a.second].user.empty() && nodes_[b.second].user.empty();
  });
  double prev = std::numeric_limits<double>::quiet_NaN();  // equal to nothing
  for (std::size_t i = 0; i < lf.size(); ++i) {
    const auto [level_fs, c] = lf[i];
    const bool tied = (i == 0 && tied_in) || prev == level_fs;
    if (!nodes_[c].user.empty()) {
      if (!tied) rank = next;
      out[{nodes_[c].account, nodes_[c].user}] = users_ > 0 ? static_cast<double>(rank) / users_ : 0;
      --next;
    } else {
      rank_children(c, tied, u, rank, next, out);
    }
    prev = level_fs;
  }
}

}  // namespace tune
