// nDCG@k as BEIR reports it (pytrec_eval / trec_eval `ndcg_cut.k`):
//
//   DCG@k  = sum over ranks i = 1..k of rel(d_i) / log2(i + 1)
//   IDCG@k = the same sum over the judged relevances sorted descending
//   nDCG@k = DCG@k / IDCG@k      (0 when the query has no relevant document)
//
// rel(d) is the graded relevance from the qrels (linear gain, the trec_eval
// definition; 0 for unjudged documents). The ranking is taken as the engine
// returned it, best first; a document id repeated in a ranking counts once.
// The run's figure is the mean over the queries that have judgements with a
// relevance > 0 (queries without any are skipped, as pytrec_eval does).
#ifndef ENGRAM_BENCH_TEXT_NDCG_H_
#define ENGRAM_BENCH_TEXT_NDCG_H_

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace engram::bench {

double NdcgAtK(const std::vector<std::string>& ranking, const std::map<std::string, int>& judged,
               std::size_t k);

// Mean nDCG@k over the queries in `qrels` that have a relevant document;
// `rankings` maps a query id to its ranking (a missing query scores 0).
double MeanNdcgAtK(const std::map<std::string, std::vector<std::string>>& rankings,
                   const std::map<std::string, std::map<std::string, int>>& qrels, std::size_t k);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_TEXT_NDCG_H_
