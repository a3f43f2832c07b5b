// The peers engram's full-text search is measured against, in the same
// process on the same documents (DESIGN.md: end-to-end benchmarks compare
// against peers in the same run). Each peer indexes the documents with its own
// analyser and is queried with the terms engram's query parser kept
// (equal_work.h), under either semantics, for the same k:
//   - SQLite FTS5: an in-memory database, contentless table fts5(title, text,
//     content='', tokenize = 'porter unicode61') (an index without a copy of
//     the documents, like engram's and Xapian's), all rows inserted in one
//     transaction, the commit timed; ranked by the built-in bm25() (k1 1.2, b
//     0.75, column weights 1); the MATCH string joins the terms, each
//     double-quoted, by AND or OR, bound as a parameter (never spliced into SQL).
//   - Xapian 1.4: an InMemory database, or a glass database on tmpfs
//     (/dev/shm); TermGenerator with the English Snowball stemmer (STEM_ALL: one
//     stemmed term per word), title then text in one posting list set with
//     positions; BM25Weight(k1 1.2, k2 0, k3 1, b 0.75, min_normlen 0.5); the
//     query is OP_AND or OP_OR of the terms, each stemmed by the same stemmer.
//     Filters: section and tags as boolean terms (`XS<section>`, `XT<tag>`),
//     installed_size_kib in value slot 0 (sortable_serialise), combined with
//     OP_FILTER.
// Semantics::kEngram runs the AND, then (two or more terms, fewer than k
// hits) the OR, and fills the places left as engram does (FillFromPartial).
#ifndef ENGRAM_BENCH_TEXT_PEERS_H_
#define ENGRAM_BENCH_TEXT_PEERS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <xapian.h>

#include "equal_work.h"

struct sqlite3;
struct sqlite3_stmt;

namespace engram::bench {

struct PeerDoc {
  std::string_view title;
  std::string_view text;
  // Filter metadata (Xapian only; empty / -1 when unused).
  std::string_view section;
  const std::vector<std::string>* tags = nullptr;
  std::int64_t size = -1;
};

// The words of `text` as FTS5's unicode61 tokenizer separates them
// (approximately: runs of ASCII letters and digits, or of non-ASCII bytes).
std::vector<std::string> SplitWords(std::string_view text);

// `"t1" OP "t2" OP ...` (each term quoted, `"` doubled), OP being `op`.
std::string Fts5Match(const std::vector<std::string>& terms, std::string_view op);

class Fts5Peer {
 public:
  Fts5Peer();
  ~Fts5Peer();
  Fts5Peer(const Fts5Peer&) = delete;
  Fts5Peer& operator=(const Fts5Peer&) = delete;

  // Inserts documents with rowid = index + 1, in one transaction.
  void Build(const std::vector<PeerDoc>& docs);
  // Record numbers (rowid - 1), best first.
  std::vector<std::uint32_t> Search(const std::vector<std::string>& terms, Semantics semantics,
                                    std::size_t k);

 private:
  std::vector<std::uint32_t> Match(const std::string& match, std::size_t k);

  sqlite3* db_ = nullptr;
  sqlite3_stmt* search_ = nullptr;
};

enum class XapianBackend { kInMemory, kGlass };

// "InMemory" or "glass".
std::string_view BackendName(XapianBackend b);

class XapianPeer {
 public:
  // kGlass creates (overwrites) a glass database in `dir`, removed with the
  // peer; kInMemory ignores `dir`.
  XapianPeer(XapianBackend backend, std::string dir);
  ~XapianPeer();
  XapianPeer(const XapianPeer&) = delete;
  XapianPeer& operator=(const XapianPeer&) = delete;

  // Adds documents (docid = index + 1) and commits.
  void Build(const std::vector<PeerDoc>& docs);
  // Record numbers (docid - 1), best first; `filter` (optional) restricts the
  // matches through OP_FILTER.
  std::vector<std::uint32_t> Search(const std::vector<std::string>& terms, Semantics semantics,
                                    std::size_t k, const Xapian::Query* filter = nullptr);
  // The query Search runs for `terms` under `op` (OP_AND or OP_OR).
  Xapian::Query TermsQuery(const std::vector<std::string>& terms, Xapian::Query::op op) const;
  // Every document `query` matches (record numbers, ascending).
  std::vector<std::uint32_t> Select(const Xapian::Query& query);
  // Whether the index holds the term `term` stems to.
  bool Indexed(const std::string& term) const;

 private:
  std::vector<std::uint32_t> Top(const Xapian::Query& query, std::size_t k,
                                 const Xapian::Query* filter);

  XapianBackend backend_;
  std::string dir_;
  Xapian::Stem stem_;
  std::unique_ptr<Xapian::Database> db_;
  std::unique_ptr<Xapian::Enquire> enquire_;
};

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_TEXT_PEERS_H_
