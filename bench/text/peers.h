// The peers engram's full-text search is measured against, in the same
// process on the same documents and queries (DESIGN.md: end-to-end benchmarks
// compare against peers in the same run):
//   - SQLite FTS5: an in-memory database, contentless table fts5(title, text,
//     content='', tokenize = 'porter unicode61') (an index without a copy of
//     the documents, like engram's and Xapian's), all rows inserted in one
//     transaction, the commit timed; ranked by the built-in bm25() (k1 1.2, b 0.75,
//     column weights 1); the query is the OR of the query's words, each
//     double-quoted, bound as a parameter (never spliced into SQL).
//   - Xapian 1.4: a glass database on tmpfs (/dev/shm), TermGenerator with
//     the English Snowball stemmer (STEM_ALL: one stemmed term per word),
//     title then text in one posting list set with positions;
//     BM25Weight(k1 1.2, k2 0, k3 1, b 0.75, min_normlen 0.5); the query is the
//     OR of the terms the same TermGenerator makes of the query text (wqf as
//     the query term weight). Filters: section and tags as boolean terms
//     (`XS<section>`, `XT<tag>`), installed_size_kib in value slot 0
//     (sortable_serialise), combined with OP_FILTER.
#ifndef ENGRAM_BENCH_TEXT_PEERS_H_
#define ENGRAM_BENCH_TEXT_PEERS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <xapian.h>

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

// `"w1" OR "w2" OR ...` (each word quoted, `"` doubled); empty for no words.
std::string Fts5OrQuery(std::string_view text);

class Fts5Peer {
 public:
  Fts5Peer();
  ~Fts5Peer();
  Fts5Peer(const Fts5Peer&) = delete;
  Fts5Peer& operator=(const Fts5Peer&) = delete;

  // Inserts documents with rowid = index + 1, in one transaction.
  void Build(const std::vector<PeerDoc>& docs);
  // Record numbers (rowid - 1), best first.
  std::vector<std::uint32_t> Search(std::string_view query_text, std::size_t k);

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* search_ = nullptr;
};

class XapianPeer {
 public:
  // Creates (overwrites) a glass database in `dir`.
  explicit XapianPeer(std::string dir);
  ~XapianPeer();
  XapianPeer(const XapianPeer&) = delete;
  XapianPeer& operator=(const XapianPeer&) = delete;

  // Adds documents (docid = index + 1) and commits.
  void Build(const std::vector<PeerDoc>& docs);
  // Record numbers (docid - 1), best first; `filter` (optional) restricts the
  // matches through OP_FILTER.
  std::vector<std::uint32_t> Search(std::string_view query_text, std::size_t k,
                                    const Xapian::Query* filter = nullptr);
  Xapian::Query TextQuery(std::string_view query_text);

 private:
  std::string dir_;
  Xapian::Stem stem_;
  Xapian::TermGenerator query_terms_;
  std::unique_ptr<Xapian::Database> db_;
  std::unique_ptr<Xapian::Enquire> enquire_;
};

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_TEXT_PEERS_H_
