#include "peers.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <fmt/core.h>
#include <sqlite3.h>

namespace engram::bench {

std::vector<std::string> SplitWords(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    bool word =
        (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
    if (word) {
      cur.push_back(ch);
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::string Fts5Match(const std::vector<std::string>& terms, std::string_view op) {
  std::string q;
  for (const std::string& t : terms) {
    if (!q.empty()) q += fmt::format(" {} ", op);
    q += '"';
    for (char c : t) {
      if (c == '"') q += '"';
      q += c;
    }
    q += '"';
  }
  return q;
}

namespace {

void Check(sqlite3* db, int rc, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    throw std::runtime_error(std::string(what) + ": " + sqlite3_errmsg(db));
  }
}

void Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err != nullptr ? err : "?";
    sqlite3_free(err);
    throw std::runtime_error(std::string(sql) + ": " + msg);
  }
}

}  // namespace

Fts5Peer::Fts5Peer() {
  Check(db_, sqlite3_open(":memory:", &db_), "sqlite3_open");
  // Contentless (content=''): FTS5 keeps the index and not a copy of the
  // documents, as engram's TextIndex and the Xapian peer (no document data)
  // do, so the three index the same thing. bm25() needs only the index.
  Exec(db_,
       "CREATE VIRTUAL TABLE docs USING fts5(title, text, content='', "
       "tokenize = 'porter unicode61')");
}

Fts5Peer::~Fts5Peer() {
  sqlite3_finalize(search_);
  sqlite3_close(db_);
}

void Fts5Peer::Build(const std::vector<PeerDoc>& docs) {
  Exec(db_, "BEGIN");
  sqlite3_stmt* ins = nullptr;
  Check(db_,
        sqlite3_prepare_v2(db_, "INSERT INTO docs(rowid, title, text) VALUES (?1, ?2, ?3)", -1,
                           &ins, nullptr),
        "prepare insert");
  for (std::size_t i = 0; i < docs.size(); ++i) {
    sqlite3_bind_int64(ins, 1, static_cast<sqlite3_int64>(i) + 1);
    sqlite3_bind_text(ins, 2, docs[i].title.data(), static_cast<int>(docs[i].title.size()),
                      SQLITE_STATIC);
    sqlite3_bind_text(ins, 3, docs[i].text.data(), static_cast<int>(docs[i].text.size()),
                      SQLITE_STATIC);
    Check(db_, sqlite3_step(ins), "insert");
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  Exec(db_, "COMMIT");
  if (search_ == nullptr) {
    Check(
        db_,
        sqlite3_prepare_v2(db_, "SELECT rowid FROM docs WHERE docs MATCH ?1 ORDER BY rank LIMIT ?2",
                           -1, &search_, nullptr),
        "prepare search");
  }
}

std::vector<std::uint32_t> Fts5Peer::Match(const std::string& match, std::size_t k) {
  std::vector<std::uint32_t> out;
  if (match.empty()) return out;
  sqlite3_bind_text(search_, 1, match.data(), static_cast<int>(match.size()), SQLITE_TRANSIENT);
  sqlite3_bind_int64(search_, 2, static_cast<sqlite3_int64>(k));
  int rc;
  while ((rc = sqlite3_step(search_)) == SQLITE_ROW) {
    out.push_back(static_cast<std::uint32_t>(sqlite3_column_int64(search_, 0) - 1));
  }
  Check(db_, rc, "search");
  sqlite3_reset(search_);
  return out;
}

std::vector<std::uint32_t> Fts5Peer::Search(const std::vector<std::string>& terms,
                                            Semantics semantics, std::size_t k) {
  if (semantics == Semantics::kOr) return Match(Fts5Match(terms, "OR"), k);
  std::vector<std::uint32_t> strict = Match(Fts5Match(terms, "AND"), k);
  if (strict.size() >= k || terms.size() < 2) return strict;
  return FillFromPartial(std::move(strict), Match(Fts5Match(terms, "OR"), k), k);
}

std::string_view BackendName(XapianBackend b) {
  return b == XapianBackend::kInMemory ? "InMemory" : "glass";
}

XapianPeer::XapianPeer(XapianBackend backend, std::string dir)
    : backend_(backend), dir_(std::move(dir)), stem_("english") {}

XapianPeer::~XapianPeer() {
  enquire_.reset();
  db_.reset();
  if (backend_ == XapianBackend::kGlass) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

void XapianPeer::Build(const std::vector<PeerDoc>& docs) {
  // Flush once at the end rather than every 10,000 documents (the default).
  setenv("XAPIAN_FLUSH_THRESHOLD", "10000000", 1);
  Xapian::WritableDatabase w =
      backend_ == XapianBackend::kInMemory
          ? Xapian::WritableDatabase(std::string(), Xapian::DB_BACKEND_INMEMORY)
          : Xapian::WritableDatabase(dir_, Xapian::DB_CREATE_OR_OVERWRITE |
                                               Xapian::DB_BACKEND_GLASS | Xapian::DB_NO_SYNC);
  Xapian::TermGenerator tg;
  tg.set_stemmer(stem_);
  tg.set_stemming_strategy(Xapian::TermGenerator::STEM_ALL);
  for (const PeerDoc& d : docs) {
    Xapian::Document doc;
    tg.set_document(doc);
    tg.index_text(std::string(d.title));
    tg.increase_termpos();
    tg.index_text(std::string(d.text));
    if (!d.section.empty()) doc.add_boolean_term("XS" + std::string(d.section));
    if (d.tags != nullptr) {
      for (const std::string& t : *d.tags) doc.add_boolean_term("XT" + t);
    }
    if (d.size >= 0) {
      doc.add_value(0, Xapian::sortable_serialise(static_cast<double>(d.size)));
    }
    w.add_document(doc);
  }
  w.commit();
  if (backend_ == XapianBackend::kInMemory) {
    db_ = std::make_unique<Xapian::Database>(w);
  } else {
    w.close();
    db_ = std::make_unique<Xapian::Database>(dir_);
  }
  enquire_ = std::make_unique<Xapian::Enquire>(*db_);
  enquire_->set_weighting_scheme(Xapian::BM25Weight(1.2, 0, 1, 0.75, 0.5));
}

Xapian::Query XapianPeer::TermsQuery(const std::vector<std::string>& terms,
                                     Xapian::Query::op op) const {
  std::vector<Xapian::Query> q;
  q.reserve(terms.size());
  for (const std::string& t : terms) q.emplace_back(stem_(t));
  return Xapian::Query(op, q.begin(), q.end());
}

std::vector<std::uint32_t> XapianPeer::Top(const Xapian::Query& query, std::size_t k,
                                           const Xapian::Query* filter) {
  enquire_->set_query(filter != nullptr ? Xapian::Query(Xapian::Query::OP_FILTER, query, *filter)
                                        : query);
  Xapian::MSet mset = enquire_->get_mset(0, static_cast<Xapian::doccount>(k));
  std::vector<std::uint32_t> out;
  out.reserve(mset.size());
  for (auto it = mset.begin(); it != mset.end(); ++it) out.push_back(*it - 1);
  return out;
}

std::vector<std::uint32_t> XapianPeer::Search(const std::vector<std::string>& terms,
                                              Semantics semantics, std::size_t k,
                                              const Xapian::Query* filter) {
  if (semantics == Semantics::kOr) return Top(TermsQuery(terms, Xapian::Query::OP_OR), k, filter);
  std::vector<std::uint32_t> strict = Top(TermsQuery(terms, Xapian::Query::OP_AND), k, filter);
  if (strict.size() >= k || terms.size() < 2) return strict;
  return FillFromPartial(std::move(strict), Top(TermsQuery(terms, Xapian::Query::OP_OR), k, filter),
                         k);
}

std::vector<std::uint32_t> XapianPeer::Select(const Xapian::Query& query) {
  Xapian::Enquire e(*db_);
  e.set_query(query);
  e.set_docid_order(Xapian::Enquire::ASCENDING);
  e.set_weighting_scheme(Xapian::BoolWeight());
  Xapian::MSet m = e.get_mset(0, db_->get_doccount());
  std::vector<std::uint32_t> out;
  for (auto it = m.begin(); it != m.end(); ++it) out.push_back(*it - 1);
  std::sort(out.begin(), out.end());
  return out;
}

bool XapianPeer::Indexed(const std::string& term) const {
  return db_->term_exists(stem_(term));
}

}  // namespace engram::bench
