// MetadataIndex's rows and value maps: putting records (one at a time, or a
// batch sorted by value per field), removing them, and their memory.
#include <algorithm>
#include <cstring>
#include <iterator>
#include <string_view>
#include <utility>

#include "base/flat_hash.h"
#include "index/metadata_index.h"

namespace engram::index {

bool MetadataIndex::ValueOrder::Less(const Value& a, const Value& b) {
  const std::optional<int> c = CompareValues(a, b);
  return c && *c < 0;
}

MetadataIndex::MetadataIndex(std::shared_ptr<const Schema> schema)
    : schema_(std::move(schema)), fields_(schema_->fields().size()) {
  for (std::size_t s = 0; s < fields_.size(); ++s) {
    const FieldType type = schema_->field(s).type;
    if (type == FieldType::kString) fields_[s].substrings = std::make_unique<SubstringIndex>();
    if (type == FieldType::kInt || type == FieldType::kFloat || type == FieldType::kDatetime) {
      fields_[s].column = std::make_unique<RangeColumn>(type);
    }
  }
}

namespace {

bool IsSet(const Value& v) {
  return std::holds_alternative<StringSet>(v);
}

// The entry for `v`, added when absent. `from` is the entry of a value
// before v (the last one a batch placed), or end() for none: the search
// walks forward from it for at most kWalk entries, else starts from the
// root. A value past every other (times and counters, as records are
// written and loaded in order) goes at the end without a search.
template <typename Map>
std::pair<typename Map::iterator, bool> Place(Map& values, typename Map::iterator from,
                                              const Value& v) {
  // A batch's next value is the hint's neighbour when records come in value
  // order; when they do not (rewritten records' later times), each step of
  // a longer walk is a cache miss spent before the search from the root
  // anyway (16 steps: 1.1 s for 1M rows a quarter out of order, 3: 0.74 s;
  // metadata_index_benchmark).
  constexpr int kWalk = 3;
  const auto& less = values.key_comp();
  if (from == values.end() || less(v, from->first)) {  // no hint, or past v's place
    if (!values.empty() && less(std::prev(values.end())->first, v)) {
      return {values.emplace_hint(values.end(), v, roaring::Roaring()), true};
    }
    from = values.lower_bound(v);
  }
  auto it = from;
  for (int steps = 0; it != values.end() && less(it->first, v); ++it) {
    if (++steps == kWalk) {
      it = values.lower_bound(v);
      break;
    }
  }
  if (it != values.end() && !less(v, it->first)) return {it, false};
  return {values.emplace_hint(it, v, roaring::Roaring()), true};
}

// A value of a batch for PutMany, with a 64-bit key that orders values of
// one type as CompareValues does (strings by their first 8 bytes, the rest
// compared only when those tie), so that sorting rarely reads the strings.
struct Entry {
  std::uint8_t type = 0;         // the Value's index (string for a set's elements)
  std::uint64_t key = 0;         // exact for all but strings
  std::string_view text;         // strings: the whole value
  const Value* value = nullptr;  // nullptr for a set's element
  std::uint32_t record = 0;
};

constexpr std::uint8_t kStringType = 4;  // Value's index of std::string
constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;

std::uint64_t TextKey(std::string_view s) {
  std::uint64_t key = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    key = key << 8 | (i < s.size() ? static_cast<unsigned char>(s[i]) : 0u);
  }
  return key;
}

Entry TextEntry(std::string_view s, const Value* value, std::uint32_t record) {
  return Entry{kStringType, TextKey(s), s, value, record};
}

Entry ValueEntry(const Value& v, std::uint32_t record) {
  Entry e{static_cast<std::uint8_t>(v.index()), 0, {}, &v, record};
  if (const auto* b = std::get_if<bool>(&v)) e.key = *b ? 1 : 0;
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    e.key = static_cast<std::uint64_t>(*i) ^ kSignBit;
  }
  if (const auto* t = std::get_if<Datetime>(&v)) {
    e.key = static_cast<std::uint64_t>(t->micros) ^ kSignBit;
  }
  if (const auto* d = std::get_if<double>(&v)) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, d, sizeof bits);
    e.key = (bits & kSignBit) != 0 ? ~bits : bits | kSignBit;
  }
  if (const auto* s = std::get_if<std::string>(&v)) e = TextEntry(*s, &v, record);
  return e;
}

bool EntryLess(const Entry& a, const Entry& b) {
  if (a.type != b.type) return a.type < b.type;
  if (a.key != b.key) return a.key < b.key;
  return a.type == kStringType && a.text < b.text;
}

// Whether two entries hold the same value (int 1 and float 1.0, or -0.0 and
// 0.0, count as different here: Place puts them into one bucket).
bool SameValue(const Entry& a, const Entry& b) {
  return a.type == b.type && a.key == b.key && (a.type != kStringType || a.text == b.text);
}

std::uint64_t EntryHash(const Entry& e) {
  const std::uint64_t h = e.type == kStringType ? FlatHash::Hash(e.text) : e.key;
  return (h ^ e.type) * 0x9E3779B97F4A7C15ull;
}

// The entries grouped by value (SameValue), the groups in value order
// (EntryLess): group g is entries[at[g] .. at[g + 1]) of `members`, in
// `entries` order. Grouping by hash first sorts only the distinct values,
// not every entry (a sort of a million entries of a hundred agents compares
// equal strings most of the time).
struct Groups {
  std::vector<std::uint32_t> at{0};
  std::vector<std::uint32_t> members;
};

Groups GroupByValue(const std::vector<Entry>& entries) {
  constexpr std::uint32_t kEmpty = UINT32_MAX;
  std::size_t capacity = 16;
  while (capacity < 2 * entries.size()) capacity *= 2;
  std::vector<std::uint32_t> table(capacity, kEmpty);  // slot -> group
  std::vector<std::uint32_t> first;                    // group -> its first entry
  std::vector<std::uint32_t> size;                     // group -> its entries
  std::vector<std::uint32_t> group_of(entries.size());
  for (std::uint32_t e = 0; e < entries.size(); ++e) {
    std::size_t slot = EntryHash(entries[e]) & (capacity - 1);
    while (table[slot] != kEmpty && !SameValue(entries[first[table[slot]]], entries[e])) {
      slot = (slot + 1) & (capacity - 1);
    }
    if (table[slot] == kEmpty) {
      table[slot] = static_cast<std::uint32_t>(first.size());
      first.push_back(e);
      size.push_back(0);
    }
    group_of[e] = table[slot];
    ++size[table[slot]];
  }
  std::vector<std::uint32_t> order(first.size());
  for (std::uint32_t g = 0; g < order.size(); ++g) order[g] = g;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return EntryLess(entries[first[a]], entries[first[b]]);
  });
  Groups out;
  std::vector<std::uint32_t> place(first.size());  // group -> next free index in members
  out.at.reserve(order.size() + 1);
  for (const std::uint32_t g : order) {
    place[g] = out.at.back();
    out.at.push_back(out.at.back() + size[g]);
  }
  out.members.resize(entries.size());
  for (std::uint32_t e = 0; e < entries.size(); ++e) out.members[place[group_of[e]]++] = e;
  return out;
}

}  // namespace

void MetadataIndex::Put(std::uint32_t record, std::vector<Value> slots) {
  Remove(record);
  for (std::size_t s = 0; s < slots.size() && s < fields_.size(); ++s) {
    const Value& v = slots[s];
    if (std::holds_alternative<std::monostate>(v)) continue;
    FieldIndex& f = fields_[s];
    f.present.add(record);
    if (IsSet(v)) {
      for (const std::string& e : std::get<StringSet>(v)) f.values[Value(e)].add(record);
      continue;
    }
    if (f.column) f.column->Set(record, v);
    auto [it, added] = Place(f.values, f.values.end(), v);
    it->second.add(record);
    if (added && f.substrings && std::holds_alternative<std::string>(it->first)) {
      f.substrings->Add(std::get<std::string>(it->first), &it->second);
    }
  }
  if (rows_.size() <= record) rows_.resize(std::size_t{record} + 1);
  slots.resize(fields_.size());
  rows_[record] = std::move(slots);
  live_.add(record);
}

void MetadataIndex::PutMany(const std::vector<std::uint32_t>& records,
                            std::vector<std::vector<Value>> rows) {
  // The last row of each record, in batch order; rows replaced are removed.
  std::vector<std::size_t> order;
  order.reserve(records.size());
  roaring::Roaring named;
  for (std::size_t i = records.size(); i-- > 0;) {
    if (named.addChecked(records[i])) order.push_back(i);
  }
  std::reverse(order.begin(), order.end());
  for (const std::size_t i : order) Remove(records[i]);
  // One pass over the rows (each a cache miss or more), every field's
  // values gathered at once.
  std::vector<std::vector<Entry>> entries(fields_.size());
  std::vector<std::vector<std::uint32_t>> present(fields_.size());
  for (const std::size_t i : order) {
    const std::uint32_t record = records[i];
    for (std::size_t s = 0; s < fields_.size() && s < rows[i].size(); ++s) {
      const Value& v = rows[i][s];
      if (std::holds_alternative<std::monostate>(v)) continue;
      present[s].push_back(record);
      if (IsSet(v)) {
        for (const std::string& e : std::get<StringSet>(v)) {
          entries[s].push_back(TextEntry(e, nullptr, record));
        }
        continue;
      }
      if (fields_[s].column) fields_[s].column->Set(record, v);
      entries[s].push_back(ValueEntry(v, record));
    }
  }
  std::vector<std::uint32_t> with;  // a value's records
  for (std::size_t s = 0; s < fields_.size(); ++s) {
    FieldIndex& f = fields_[s];
    std::sort(present[s].begin(), present[s].end());
    f.present.addMany(present[s].size(), present[s].data());
    std::vector<std::uint32_t>().swap(present[s]);
    // In value order, each value's entry is found a few steps past the last
    // one's (Place), rather than searched for from the map's root.
    const std::vector<Entry>& field = entries[s];
    const Groups groups = GroupByValue(field);
    auto from = f.values.end();
    for (std::size_t g = 0; g + 1 < groups.at.size(); ++g) {
      const Entry& first = field[groups.members[groups.at[g]]];
      const Value element = first.value ? Value() : Value(std::string(first.text));
      auto [it, added] = Place(f.values, from, first.value ? *first.value : element);
      from = it;
      with.clear();
      for (std::uint32_t m = groups.at[g]; m < groups.at[g + 1]; ++m) {
        with.push_back(field[groups.members[m]].record);
      }
      if (!std::is_sorted(with.begin(), with.end())) std::sort(with.begin(), with.end());
      it->second.addMany(with.size(), with.data());
      if (added && f.substrings && std::holds_alternative<std::string>(it->first)) {
        f.substrings->Add(std::get<std::string>(it->first), &it->second);
      }
    }
  }
  with.clear();
  for (const std::size_t i : order) {
    const std::uint32_t record = records[i];
    if (rows_.size() <= record) rows_.resize(std::size_t{record} + 1);
    rows[i].resize(fields_.size());
    rows_[record] = std::move(rows[i]);
    with.push_back(record);
  }
  std::sort(with.begin(), with.end());
  live_.addMany(with.size(), with.data());
}

void MetadataIndex::Remove(std::uint32_t record) {
  if (!live_.contains(record)) return;
  const std::vector<Value>& row = rows_[record];
  auto drop = [&](FieldIndex& f, const Value& key) {
    auto it = f.values.find(key);
    if (it == f.values.end()) return;
    it->second.remove(record);
    if (!it->second.isEmpty()) return;
    if (f.substrings && std::holds_alternative<std::string>(it->first)) {
      f.substrings->Remove(std::get<std::string>(it->first));
    }
    f.values.erase(it);
  };
  auto unmark = [&](roaring::Roaring& r) { r.remove(record); };
  for (std::size_t s = 0; s < row.size(); ++s) {
    const Value& v = row[s];
    if (std::holds_alternative<std::monostate>(v)) continue;
    FieldIndex& f = fields_[s];
    unmark(f.present);
    if (IsSet(v)) {
      for (const std::string& e : std::get<StringSet>(v)) drop(f, Value(e));
    } else {
      drop(f, v);
    }
  }
  std::vector<Value>().swap(rows_[record]);
  unmark(live_);
}

std::size_t MetadataIndex::MemoryBytes() const {
  auto text = [](const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 : 0; };
  auto value = [&](const Value& v) {
    std::size_t bytes = 0;
    if (const auto* s = std::get_if<std::string>(&v)) bytes += text(*s);
    if (const auto* set = std::get_if<StringSet>(&v)) {
      bytes += set->capacity() * sizeof(std::string);
      for (const std::string& e : *set) bytes += text(e);
    }
    return bytes;
  };
  std::size_t bytes = rows_.capacity() * sizeof(rows_[0]) + live_.getSizeInBytes(false);
  for (const std::vector<Value>& row : rows_) {
    bytes += row.capacity() * sizeof(Value);
    for (const Value& v : row) bytes += value(v);
  }
  for (const FieldIndex& f : fields_) {
    bytes += f.present.getSizeInBytes(false) + (f.column ? f.column->MemoryBytes() : 0);
    for (const auto& [key, records] : f.values) {
      bytes += 4 * sizeof(void*) + sizeof(Value) + sizeof(roaring::Roaring) + value(key) +
               records.getSizeInBytes(false);
    }
  }
  return bytes;
}

const std::vector<Value>* MetadataIndex::Row(std::uint32_t record) const {
  return live_.contains(record) ? &rows_[record] : nullptr;
}

}  // namespace engram::index
