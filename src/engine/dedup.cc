#include "engine/dedup.h"

#include <charconv>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include "base/json.h"
#include "engine/record_key.h"
#include "engine/scope.h"
#include "engine/touch.h"
#include "filter/eval/program.h"
#include "search/thresholds.h"
#include "vector/metric.h"

namespace engram::engine {
namespace {

std::string NormalizeOne(const std::string& text) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  icu::UnicodeString s = icu::UnicodeString::fromUTF8(text);
  if (U_SUCCESS(status)) s = nfc->normalize(s, status);
  s.foldCase(U_FOLD_CASE_DEFAULT);
  // Folding can leave a string that is not in NFC (U+0130 folds to i + U+0307).
  if (U_SUCCESS(status)) s = nfc->normalize(s, status);
  icu::UnicodeString collapsed;
  bool space = false;
  for (int32_t i = 0; i < s.length();) {
    const UChar32 c = s.char32At(i);
    i += U16_LENGTH(c);
    if (u_isUWhiteSpace(c)) {
      space = !collapsed.isEmpty();
      continue;
    }
    if (space) collapsed.append(static_cast<UChar>(' '));
    space = false;
    collapsed.append(c);
  }
  std::string out;
  collapsed.toUTF8String(out);
  return out;
}

// The similarity of two raw vectors as VectorSimilarity defines it.
double Similarity(vector::Metric metric, const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0, aa = 0, bb = 0, l2 = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    dot += static_cast<double>(a[i]) * b[i];
    aa += static_cast<double>(a[i]) * a[i];
    bb += static_cast<double>(b[i]) * b[i];
    l2 += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
  }
  switch (metric) {
    case vector::Metric::kCosine:
      return aa > 0 && bb > 0 ? dot / std::sqrt(aa * bb) : 0;
    case vector::Metric::kDot:
      return dot;
    case vector::Metric::kL2:
      return 1 / (1 + std::sqrt(l2));
  }
  return 0;
}

// The text fields of a stored body, as Prepare read them.
std::vector<std::string> StoredTexts(const CollectionSpec& spec, const std::string& body) {
  std::vector<std::string> texts(spec.text.size());
  json::ReadOptions options;
  options.max_bytes = 0;  // written by us, bounded on the way in
  json::ReadResult read = json::Read(body, options);
  if (!read.ok() || !read.value.is_object()) return texts;
  for (std::size_t i = 0; i < spec.text.size(); ++i) {
    auto it = read.value.find(spec.text[i].name);
    if (it != read.value.end() && it->is_string()) texts[i] = it->get<std::string>();
  }
  return texts;
}

std::optional<std::string> OwnerOfRow(const Collection& c, const std::vector<Value>* row) {
  if (!c.owner_slot() || row == nullptr) return std::nullopt;
  const std::optional<std::string_view> owner = OwnerOf(*row, *c.owner_slot());
  return owner ? std::optional<std::string>(*owner) : std::nullopt;
}

// The filter leaf "agent_id == owner", or "agent_id absent".
filter::Node OwnerNode(std::uint32_t slot, const std::optional<std::string>& owner) {
  filter::Node n;
  n.slot = slot;
  n.origin = "dedup:agent_id";
  if (owner) {
    n.op = filter::Op::kCmp;
    n.cmp = filter::CmpOp::kEq;
    n.values = {Value(*owner)};
    return n;
  }
  n.op = filter::Op::kExists;
  filter::Node absent;
  absent.op = filter::Op::kNot;
  absent.children.push_back(std::move(n));
  return absent;
}

}  // namespace

std::string NormalizeContent(const std::vector<std::string>& texts) {
  std::string out;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (i > 0) out += '\x1f';
    out += NormalizeOne(texts[i]);
  }
  return out;
}

std::uint64_t ContentHash(std::optional<std::string_view> owner, std::string_view normalized) {
  // FNV-1a (Fowler, Noll, Vo), 64-bit offset basis and prime.
  std::uint64_t h = 14695981039346656037ull;
  auto add = [&h](std::string_view bytes) {
    for (const char ch : bytes) {
      h ^= static_cast<unsigned char>(ch);
      h *= 1099511628211ull;
    }
  };
  // The owner with its length first (absent: "-"), so no content can pose as it.
  add(owner ? std::to_string(owner->size()) + ":" + std::string(*owner) : std::string("-"));
  add("\x1e");
  add(normalized);
  return h == 0 ? 1 : h;  // 0 means "no hash" in the index
}

std::vector<Deduplicated> Deduplicate(const Collection& c, const Collection::Writer& writer,
                                      Datetime now, std::vector<PreparedRecord>* records,
                                      std::map<std::uint32_t, Datetime>* refresh) {
  std::vector<Deduplicated> out;
  const DedupSpec& dedup = c.spec().dedup;
  if (dedup.mode == DedupMode::kOff || records->empty()) return out;
  const bool refreshing = dedup.action == DedupAction::kRefresh && c.time_slot().has_value();
  // The time a duplicate refreshes its record to: its own, else now.
  auto time_of = [&](const PreparedRecord& r) {
    const Value& v = r.slots[*c.time_slot()];
    return std::holds_alternative<Datetime>(v) ? std::get<Datetime>(v) : now;
  };
  // The stored records this batch replaces are not what a record duplicates.
  std::unordered_set<std::uint32_t> replaced;
  for (const PreparedRecord& r : *records) {
    if (std::optional<std::uint32_t> doc = writer.Find(r.key)) replaced.insert(*doc);
  }
  auto owner_of = [&](const PreparedRecord& r) -> std::optional<std::string> {
    if (!c.owner_slot()) return std::nullopt;
    const std::optional<std::string_view> owner = OwnerOf(r.slots, *c.owner_slot());
    return owner ? std::optional<std::string>(*owner) : std::nullopt;
  };
  std::vector<PreparedRecord> kept;
  kept.reserve(records->size());
  // Exact: hash -> kept records' positions in `kept`, with their content.
  std::unordered_multimap<std::uint64_t, std::size_t> kept_by_hash;
  std::vector<std::string> kept_content;
  // Near: the owner's stored records (less those excluded), and its kept records.
  std::map<std::optional<std::string>, roaring::Roaring> owner_docs;
  std::map<std::optional<std::string>, std::vector<std::size_t>> kept_by_owner;
  // Near: stored records no record duplicates (replaced or expired).
  roaring::Roaring excluded;
  for (const std::uint32_t doc : replaced) excluded.add(doc);
  // Expired records (CollectionSpec::ttl_field) are invisible to every read
  // and soon purged: they take no part, stored or in the batch.
  const std::optional<filter::Node> expired_node = ExpiredNode(c, now);
  std::optional<filter::Program> expired;
  if (expired_node) {
    expired.emplace(*expired_node, *c.row_schema());
    if (dedup.mode == DedupMode::kNear) excluded |= writer.metadata().Evaluate(*expired_node);
  }
  // So are superseded records (engine.h, "Supersession"): a record that
  // restates an outdated fact makes it current again rather than vanish.
  if (dedup.mode == DedupMode::kNear && c.has_superseded()) {
    excluded |= writer.metadata().Evaluate(SupersededNode(c, std::nullopt));
  }
  auto live = [&](const std::vector<Value>& row) {
    return (!expired || !expired->Matches(row)) &&
           std::holds_alternative<std::monostate>(row[c.superseded_slot()]);
  };

  for (PreparedRecord& r : *records) {
    const std::optional<std::string> owner = owner_of(r);
    std::optional<Deduplicated> dup;
    std::optional<std::uint32_t> dup_doc;  // the stored record it duplicates
    std::optional<std::size_t> dup_kept;   // or the kept record, in `kept`
    std::string content;
    const bool checked = live(r.slots);
    if (checked && dedup.mode == DedupMode::kExact) {
      content = NormalizeContent(r.texts);
      for (const std::uint32_t doc : writer.FindContent(r.content_hash)) {
        if (replaced.count(doc) > 0) continue;
        const std::vector<Value>* row = writer.metadata().Row(doc);
        if (OwnerOfRow(c, row) != owner || (row != nullptr && !live(*row))) continue;
        if (NormalizeContent(StoredTexts(c.spec(), writer.body_of(doc))) != content) continue;
        dup = Deduplicated{r.position, r.id, writer.id_of(doc), std::nullopt};
        dup_doc = doc;
        break;
      }
      if (!dup) {
        auto [first, last] = kept_by_hash.equal_range(r.content_hash);
        for (auto it = first; it != last; ++it) {
          if (kept_content[it->second] == content && owner_of(kept[it->second]) == owner) {
            dup = Deduplicated{r.position, r.id, kept[it->second].id, std::nullopt};
            dup_kept = it->second;
            break;
          }
        }
      }
    } else if (checked && !r.vector.empty()) {
      auto [docs, fresh] = owner_docs.try_emplace(owner);
      if (fresh) {
        docs->second = c.owner_slot()
                           ? writer.metadata().Evaluate(OwnerNode(*c.owner_slot(), owner))
                           : writer.metadata().live();
        docs->second -= excluded;
      }
      StatusOr<std::optional<std::pair<std::uint32_t, double>>> nearest =
          writer.Nearest(r.vector, docs->second);
      // A vector the index refuses was refused by Prepare first; nothing to compare then.
      if (nearest.ok() && *nearest && (*nearest)->second >= dedup.threshold) {
        dup = Deduplicated{r.position, r.id, writer.id_of((*nearest)->first), (*nearest)->second};
        dup_doc = (*nearest)->first;
      }
      if (!dup) {
        const std::vector<std::size_t>& peers = kept_by_owner[owner];
        const vector::Metric metric = *vector::TryParseMetric(c.spec().metric);
        const std::size_t from =
            peers.size() > kMaxNearBatchPeers ? peers.size() - kMaxNearBatchPeers : 0;
        for (std::size_t p = from; p < peers.size(); ++p) {
          const double similarity = Similarity(metric, r.vector, kept[peers[p]].vector);
          if (similarity >= dedup.threshold) {
            dup = Deduplicated{r.position, r.id, kept[peers[p]].id, similarity};
            dup_kept = peers[p];
            break;
          }
        }
      }
    }
    if (dup) {
      if (refreshing) {
        dup->action = DedupAction::kRefresh;
        const Datetime t = time_of(r);
        if (dup_doc) {
          auto [it, fresh] = refresh->try_emplace(*dup_doc, t);
          if (!fresh) it->second = std::max(it->second, t);
        } else if (dup_kept) {
          RefreshKept(c, t, &kept[*dup_kept]);
        }
      }
      out.push_back(std::move(*dup));
      continue;
    }
    if (checked && dedup.mode == DedupMode::kExact) {
      kept_by_hash.emplace(r.content_hash, kept.size());
    } else if (checked) {
      kept_by_owner[owner].push_back(kept.size());
    }
    kept_content.push_back(std::move(content));  // by position in `kept`
    kept.push_back(std::move(r));
  }
  *records = std::move(kept);
  return out;
}

}  // namespace engram::engine

namespace engram {

StatusOr<DedupSpec> ParseDedup(std::string_view text) {
  if (text == "off") return DedupSpec{};
  // The action, last: ":skip" or ":refresh".
  DedupAction action = DedupAction::kSkip;
  for (const auto& [suffix, named] :
       {std::pair<std::string_view, DedupAction>{":skip", DedupAction::kSkip},
        {":refresh", DedupAction::kRefresh}}) {
    if (text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix) {
      action = named;
      text.remove_suffix(suffix.size());
      break;
    }
  }
  if (text == "off") return Status::InvalidArgument("dedup: off takes no action");
  if (text == "exact") return DedupSpec{DedupMode::kExact, 0, action};
  if (text.rfind("near:", 0) == 0) {
    const std::string_view number = text.substr(5);
    double threshold = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), threshold);
    if (ec == std::errc() && end == number.data() + number.size() && std::isfinite(threshold)) {
      return DedupSpec{DedupMode::kNear, threshold, action};
    }
    return Status::InvalidArgument("dedup: threshold '" + std::string(number) +
                                   "' is not a finite number");
  }
  return Status::InvalidArgument("dedup: '" + std::string(text) +
                                 "' is not off, exact[:skip|:refresh] or "
                                 "near:THRESHOLD[:skip|:refresh]");
}

std::string_view DedupActionName(DedupAction action) {
  return action == DedupAction::kRefresh ? "refreshed" : "skipped";
}

std::string DedupText(const DedupSpec& dedup) {
  const std::string action = dedup.action == DedupAction::kRefresh ? ":refresh" : "";
  switch (dedup.mode) {
    case DedupMode::kOff:
      return "off";
    case DedupMode::kExact:
      return "exact" + action;
    case DedupMode::kNear:
      return "near:" + json::Value(dedup.threshold).dump() + action;
  }
  return "off";
}

}  // namespace engram
