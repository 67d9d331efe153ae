// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Slurm's Fair Tree, priority/multifactor's fair-share factor by default
// (PriorityFlags without NO_FAIR_TREE): at each level of the association
// tree, siblings rank by S / U (S their shares over their siblings', U their
// usage over their parent's; no usage ranks first); users take ranks N, N-1,
// ... in that order, depth first, and ties keep the rank before them. A
// user association's factor is its rank / N, N the number of user
// associations. As src/plugins/priority/multifactor/fair_tree.c computes it
// (22.05-26.05). No Slurm here.
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tune {

struct Association {
  std::string account;  // the account it belongs to (an account's own row: itself)
  std::string user;     // empty: the account itself
  std::string parent;   // an account's parent account; ignored for a user
  double shares = 1;    // raw shares (Slurm's Share; "parent" is not modelled)
};

// (account, user): a user association's key.
using AssocKey = std::pair<std::string, std::string>;

class FairTree {
 public:
  // The tree of `assocs` under the root account "root". An account whose
  // parent is missing hangs from root; a user's account is added under root
  // when it has no row.
  explicit FairTree(const std::vector<Association>& assocs);

  // Adds user association (account, user) if absent (its account under root if new).
  void ensure(const std::string& account, const std::string& user);
  void ensure(const AssocKey& k) { ensure(k.first, k.second); }
  std::size_t users() const { return users_; }

  // Each user association's fair-share factor in (0, 1] from its usage
  // (missing: none); an account's usage is the sum of its children's.
  std::map<AssocKey, double> factors(const std::map<AssocKey, double>& usage) const;

 private:
  struct Node {
    std::string account, user;  // user empty: an account
    double shares = 1;
    std::vector<int> children;
  };
  int account_node(const std::string& account);
  double usage_of(int n, const std::map<AssocKey, double>& usage, std::vector<double>& memo) const;
  void rank_children(int parent, bool tied_in, const std::vector<double>& u, std::size_t& rank,
                     std::size_t& next, std::map<AssocKey, double>& out) const;

  std::vector<Node> nodes_;  // 0: root
  std::map<std::string, int> accounts_;
  std::size_t users_ = 0;
};

}  // namespace tune
