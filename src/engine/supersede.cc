#include "engine/supersede.h"

#include <algorithm>
#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "engine/record_key.h"
#include "engine/version.h"

namespace engram::engine {
namespace {

std::optional<std::string_view> OwnerOfSlots(const Collection& c, const std::vector<Value>& slots) {
  return c.owner_slot() ? OwnerOf(slots, *c.owner_slot()) : std::nullopt;
}

bool IsSuperseded(const Collection& c, const std::vector<Value>& slots) {
  return !std::holds_alternative<std::monostate>(slots[c.superseded_slot()]);
}

std::optional<Datetime> WrittenAt(const Collection& c, const std::vector<Value>& slots) {
  const Datetime* t = std::get_if<Datetime>(&slots[c.written_slot()]);
  return t != nullptr ? std::optional<Datetime>(*t) : std::nullopt;
}

}  // namespace

StatusOr<Supersession> Supersede(const Collection& c, const Collection::Writer& writer,
                                 storage::Store& store, Datetime now,
                                 std::vector<PreparedRecord>* batch) {
  Supersession out;
  std::unordered_map<std::string_view, std::size_t> in_batch;  // key -> position in `batch`
  for (std::size_t i = 0; i < batch->size(); ++i) {
    PreparedRecord& r = (*batch)[i];
    r.slots[c.written_slot()] = now;
    r.slots[c.superseded_slot()] = std::monostate();  // a write makes a record current
    in_batch[r.key] = i;
  }
  // Expired records are as good as gone: superseding one is naming nothing.
  ASSIGN_OR_RETURN(std::optional<ScopeTests> tests,
                   MakeScopeTests(c, std::nullopt, ReadTime{now, std::nullopt, true}));
  std::unordered_map<std::uint32_t, std::size_t> stored;  // doc -> position in out.records
  for (const PreparedRecord& r : *batch) {
    const std::optional<std::string_view> owner = OwnerOfSlots(c, r.slots);
    for (std::size_t j = 0; j < r.supersedes.size(); ++j) {
      const std::string& id = r.supersedes[j];
      const std::string key = c.OwnedKeyOf(owner, id);
      if (auto it = in_batch.find(key); it != in_batch.end()) {
        std::vector<Value>& slots = (*batch)[it->second].slots;
        if (!IsSuperseded(c, slots)) {
          slots[c.superseded_slot()] = now;
          out.report.push_back(Superseded{r.position, r.id, id});
        }
        continue;
      }
      const std::optional<std::uint32_t> doc = writer.Find(key);
      const std::vector<Value>* row = doc ? writer.metadata().Row(*doc) : nullptr;
      if (row == nullptr || (tests && !tests->reads.Matches(*row))) {
        const std::string path = std::string(kSupersedesMember) + "[" + std::to_string(j) + "]";
        out.rejected =
            Diagnostic{400, "record.supersedes_unknown", path,
                       path + ": no record '" + id +
                           "' of the record's owner to supersede (absent, expired or not its own)"};
        out.rejected_index = r.position;
        return out;
      }
      if (IsSuperseded(c, *row) || stored.count(*doc) > 0) continue;
      // The stored record, put again with its version: same number, body
      // and vector; only its metadata row and stored body change.
      ASSIGN_OR_RETURN(std::optional<storage::Store::Found> found,
                       store.GetRecord(c.spec().name, key));
      if (!found) return Status::Internal("record '" + id + "' is indexed but not stored");
      ASSIGN_OR_RETURN(PreparedRecord p, c.Reload(found->body, ""));
      p.slots[c.superseded_slot()] = now;
      p.index_text = false;
      p.index_vector = false;
      stored[*doc] = out.records.size();
      out.puts.push_back({key, *doc, c.StoredBodyOf(p), std::move(found->vector)});
      out.docs.push_back(*doc);
      out.records.push_back(std::move(p));
      out.report.push_back(Superseded{r.position, r.id, id});
    }
  }
  std::stable_sort(out.report.begin(), out.report.end(),
                   [](const Superseded& a, const Superseded& b) { return a.index < b.index; });
  return out;
}

std::vector<std::uint32_t> History(const Collection::Reader& reader, const Collection& c,
                                   std::uint32_t doc, const std::optional<ScopeTests>& tests,
                                   std::optional<Datetime> as_of, bool* truncated) {
  *truncated = false;
  std::vector<std::uint32_t> out;
  std::unordered_set<std::uint32_t> seen{doc};
  std::deque<std::uint32_t> next{doc};
  while (!next.empty() && !*truncated) {
    const std::uint32_t at = next.front();
    next.pop_front();
    const std::vector<Value>& row = *reader.metadata().Row(at);
    const std::optional<std::string_view> owner = OwnerOfSlots(c, row);
    for (const std::string& id : SupersedesOf(reader.body_of(at))) {
      const std::optional<std::uint32_t> p = reader.Find(c.OwnedKeyOf(owner, id));
      if (!p || !seen.insert(*p).second) continue;
      const std::vector<Value>& prow = *reader.metadata().Row(*p);
      // A predecessor is no longer current (an id taken again by a new
      // record is not one), readable by the caller and, as of an instant,
      // written by then.
      if (!IsSuperseded(c, prow) || (tests && !tests->reads.Matches(prow))) continue;
      const std::optional<Datetime> written = WrittenAt(c, prow);
      if (as_of && written && *written > *as_of) continue;
      if (out.size() == kMaxHistory) {
        *truncated = true;
        break;
      }
      out.push_back(*p);
      next.push_back(*p);
    }
  }
  std::sort(out.begin(), out.end(), [&](std::uint32_t a, std::uint32_t b) {
    const std::optional<Datetime> ta = WrittenAt(c, *reader.metadata().Row(a));
    const std::optional<Datetime> tb = WrittenAt(c, *reader.metadata().Row(b));
    if (ta != tb) return ta > tb;  // newest first; without a write time last
    return reader.id_of(a) < reader.id_of(b);
  });
  return out;
}

}  // namespace engram::engine
