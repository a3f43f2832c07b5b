#include "ndcg.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace engram::bench {

double NdcgAtK(const std::vector<std::string>& ranking, const std::map<std::string, int>& judged,
               std::size_t k) {
  std::vector<int> ideal;
  for (const auto& [doc, rel] : judged) {
    if (rel > 0) ideal.push_back(rel);
  }
  if (ideal.empty()) return 0.0;
  std::sort(ideal.begin(), ideal.end(), std::greater<>());
  double idcg = 0.0;
  for (std::size_t i = 0; i < ideal.size() && i < k; ++i) {
    idcg += ideal[i] / std::log2(static_cast<double>(i) + 2.0);
  }
  double dcg = 0.0;
  std::set<std::string> seen;
  std::size_t rank = 0;
  for (const std::string& doc : ranking) {
    if (rank == k) break;
    if (!seen.insert(doc).second) continue;
    auto it = judged.find(doc);
    if (it != judged.end() && it->second > 0) {
      dcg += it->second / std::log2(static_cast<double>(rank) + 2.0);
    }
    ++rank;
  }
  return dcg / idcg;
}

double MeanNdcgAtK(const std::map<std::string, std::vector<std::string>>& rankings,
                   const std::map<std::string, std::map<std::string, int>>& qrels, std::size_t k) {
  double sum = 0.0;
  std::size_t n = 0;
  static const std::vector<std::string> kNone;
  for (const auto& [qid, judged] : qrels) {
    bool any =
        std::any_of(judged.begin(), judged.end(), [](const auto& e) { return e.second > 0; });
    if (!any) continue;
    auto it = rankings.find(qid);
    sum += NdcgAtK(it == rankings.end() ? kNone : it->second, judged, k);
    ++n;
  }
  return n == 0 ? 0.0 : sum / static_cast<double>(n);
}

}  // namespace engram::bench
