// Implements engine.h's List, Count and Facets (listing.h): each selects
// the caller's visible records passing a filter from the metadata indexes
// under the shared lock, then pages them in a total order (keyset
// pagination: page_token.h), counts them, or counts their values.
#include <algorithm>
#include <utility>

#include "base/json.h"
#include "engine/engine_impl.h"
#include "engine/internal.h"
#include "engine/page_token.h"
#include "engine/scope.h"

namespace engram {

using engine::Collection;

namespace {

Diagnostic Invalid(std::string path, std::string message) {
  return Diagnostic{400, "request.invalid", std::move(path), std::move(message)};
}

// The selection's compiled parts, or the Diagnostic of its bad filter or as_of.
struct Selection {
  std::optional<Checked<filter::CompiledFilter>> filter;
  engine::ReadTime at;
  std::optional<Diagnostic> rejected;
};

Selection Compile(const Collection& c, const RecordSelection& s, Datetime now) {
  Selection out;
  if (!s.filter.empty()) {
    out.filter.emplace(c.CompileFilter(s.dialect.value_or(FilterDialect::kVectorFilter), s.filter));
    if (!out.filter->ok()) out.rejected = out.filter->diagnostic();
  }
  Checked<engine::ReadTime> at = engine::ParseReadTime(s.as_of, now);
  if (!at.ok() && !out.rejected) out.rejected = at.diagnostic();
  if (at.ok()) out.at = at.value();
  return out;
}

// The records of `reader` that `selection` selects for the caller `scope`.
// PermissionDenied as VisibleFilter.
StatusOr<roaring::Roaring> Selected(const Collection::Reader& reader, const Collection& c,
                                    const Selection& selection, const std::optional<Scope>& scope,
                                    const Deadline& deadline) {
  ASSIGN_OR_RETURN(std::optional<filter::CompiledFilter> visible,
                   engine::VisibleFilter(c, scope, selection.at));
  const index::MetadataIndex& metadata = reader.metadata();
  // One `and` of what is visible and the filter, their own `and`s flattened
  // into it, so that the index intersects the smallest sets first (a
  // tenant's records before a time range over everyone's).
  filter::Node both;
  both.op = filter::Op::kAnd;
  const filter::CompiledFilter* const parts[] = {
      visible ? &*visible : nullptr, selection.filter ? &selection.filter->value() : nullptr};
  for (const filter::CompiledFilter* part : parts) {
    if (part == nullptr) continue;
    const filter::Node& root = part->optimized.root;
    if (root.op == filter::Op::kAnd) {
      both.children.insert(both.children.end(), root.children.begin(), root.children.end());
    } else {
      both.children.push_back(root);
    }
  }
  roaring::Roaring out =
      both.children.empty() ? metadata.live() : metadata.Evaluate(both, &deadline);
  RETURN_IF_ERROR(deadline.Check("filtering"));
  return out;
}

// A listing's order: by a field's value (present before absent), then by
// record key; or by key alone.
struct Order {
  std::optional<std::uint32_t> slot;
  std::optional<FieldType> type;
  bool descending = false;
  std::string text;  // canonical, for the query fingerprint

  // Whether (va, ka) comes before (vb, kb); a null value is absent.
  bool Before(const Value* va, std::string_view ka, const Value* vb, std::string_view kb) const {
    if ((va != nullptr) != (vb != nullptr)) return va != nullptr;
    if (va != nullptr) {
      const std::optional<int> c = CompareValues(*va, *vb);
      if (c && *c != 0) return descending ? *c > 0 : *c < 0;
    }
    return ka < kb;
  }
};

std::optional<Diagnostic> ParseOrder(const Collection& c, std::string_view text, Order* order) {
  if (text.empty()) {
    if (c.time_slot()) {
      order->slot = c.time_slot();
      order->type = FieldType::kDatetime;
      order->descending = true;
    }
  } else {
    std::string_view name = text;
    if (const std::size_t colon = text.rfind(':'); colon != std::string_view::npos) {
      const std::string_view dir = text.substr(colon + 1);
      if (dir != "asc" && dir != "desc") {
        return Invalid("order_by", "order_by: '" + std::string(dir) +
                                       "' is not a direction (FIELD[:asc|desc])");
      }
      order->descending = dir == "desc";
      name = text.substr(0, colon);
    }
    const Field* f = c.schema().Find(name);
    if (f == nullptr) {
      return Invalid("order_by", "order_by: no field '" + std::string(name) + "' in the schema");
    }
    if (f->type == FieldType::kStringSet) {
      return Invalid("order_by",
                     "order_by: field '" + f->name + "' is a set<string>, which has no order");
    }
    order->slot = f->slot;
    order->type = f->type;
  }
  order->text = (order->slot ? c.schema().field(*order->slot).name : std::string("(key)")) +
                (order->descending ? ":desc" : ":asc");
  return std::nullopt;
}

// The fingerprint a page token of `request` carries: everything that
// decides which records come in which order.
std::uint64_t Fingerprint(std::string_view collection, const ListRequest& request,
                          const Order& order, const engine::ReadTime& at) {
  const RecordSelection& s = request.selection;
  const std::string dialect =
      s.filter.empty()
          ? ""
          : std::to_string(static_cast<int>(s.dialect.value_or(FilterDialect::kVectorFilter)));
  const std::string profile = s.scope ? std::string(ReadProfileName(s.scope->profile)) : "";
  const std::string as_of = at.as_of ? FormatDatetime(*at.as_of) : "";
  return engine::QueryFingerprint({collection, s.filter, dialect, order.text,
                                   s.scope ? "scoped" : "owner", s.scope ? s.scope->agent : "",
                                   profile, as_of});
}

// What a record costs of the reply budget (as a search hit does).
std::size_t Cost(const std::string& id, const std::string& record) {
  return id.size() + record.size() + kHitReplyBytes;
}

// A range bound as a literal of a field of `type`; nullopt when it is not one.
std::optional<Value> RangeLiteral(const std::string& text, FieldType type) {
  if (type == FieldType::kDatetime) {
    const std::optional<ParsedDatetime> t = ParseDatetime(text, DatetimeForm::kLenient);
    return t ? std::optional<Value>(Value(t->value)) : std::nullopt;
  }
  json::ReadResult read = json::Read(text);
  if (!read.ok() || !read.value.is_number()) return std::nullopt;
  if (read.value.is_number_integer()) return Value(read.value.get<std::int64_t>());
  return Value(read.value.get<double>());
}

}  // namespace

StatusOr<ListResponse> Engine::List(std::string_view collection, const ListRequest& request) const {
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> c, impl_->Find(collection));
  const Deadline deadline(request.bounds.deadline);
  ListResponse response;
  if (request.page_size == 0 || request.page_size > kMaxPageSize) {
    response.rejected =
        Invalid("page_size", "page_size: must be in [1, " + std::to_string(kMaxPageSize) + "]");
    return response;
  }
  Order order;
  if ((response.rejected = ParseOrder(*c, request.order_by, &order))) return response;
  const Selection selection = Compile(*c, request.selection, impl_->Now());
  if ((response.rejected = selection.rejected)) return response;
  const std::uint64_t fingerprint = Fingerprint(collection, request, order, selection.at);
  std::optional<engine::PageToken> after;
  if (!request.page_token.empty()) {
    after = request.page_token.size() <= kMaxPageTokenBytes
                ? engine::DecodePageToken(request.page_token, order.type)
                : std::nullopt;
    if (!after) {
      response.rejected = Invalid("page_token", "page_token: not a page token this listing issued");
      return response;
    }
    if (after->query != fingerprint) {
      response.rejected = Invalid("page_token",
                                  "page_token: belongs to another query (collection, filter, "
                                  "dialect, order_by, as_of or caller): list from the first page");
      return response;
    }
  }

  const Collection::Reader reader = c->Read();
  ASSIGN_OR_RETURN(const roaring::Roaring selected,
                   Selected(reader, *c, selection, request.selection.scope, deadline));
  auto value_of = [&](std::uint32_t doc) -> const Value* {
    if (!order.slot) return nullptr;
    const Value& v = (*reader.metadata().Row(doc))[*order.slot];
    return std::holds_alternative<std::monostate>(v) ? nullptr : &v;
  };
  auto before = [&](std::uint32_t a, std::uint32_t b) {
    return order.Before(value_of(a), reader.key_of(a), value_of(b), reader.key_of(b));
  };
  const Value* after_value =
      after && !std::holds_alternative<std::monostate>(after->value) ? &after->value : nullptr;
  // The page_size + 1 first records after the token (one more says whether
  // another page follows).
  auto after_token = [&](std::uint32_t doc) {
    return !after || order.Before(after_value, after->key, value_of(doc), reader.key_of(doc));
  };
  const std::vector<std::uint32_t> docs =
      FirstK(selected, request.page_size + 1, before, after_token, deadline);
  RETURN_IF_ERROR(deadline.Check("listing"));
  // A page ends at page_size or at the reply budget, whichever comes first;
  // it always holds one record, so a listing always advances.
  std::size_t spent = 0;
  std::size_t n = 0;
  for (; n < docs.size() && n < request.page_size; ++n) {
    const std::string& id = reader.id_of(docs[n]);
    const std::string& body = reader.body_of(docs[n]);
    const std::size_t budget = request.bounds.max_reply_bytes;
    if (n > 0 && budget > 0 && spent + Cost(id, body) > budget) break;
    spent += Cost(id, body);
    response.records.push_back(ListedRecord{id, body});
  }
  if (n < docs.size()) {
    const std::uint32_t last = docs[n - 1];
    const Value* v = value_of(last);
    response.next_page_token = engine::EncodePageToken(
        engine::PageToken{fingerprint, v != nullptr ? *v : Value(), reader.key_of(last)});
  }
  return response;
}

StatusOr<CountResponse> Engine::Count(std::string_view collection, const RecordSelection& selection,
                                      const RequestBounds& bounds) const {
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> c, impl_->Find(collection));
  const Deadline deadline(bounds.deadline);
  CountResponse response;
  const Selection compiled = Compile(*c, selection, impl_->Now());
  if ((response.rejected = compiled.rejected)) return response;
  const Collection::Reader reader = c->Read();
  ASSIGN_OR_RETURN(const roaring::Roaring selected,
                   Selected(reader, *c, compiled, selection.scope, deadline));
  response.count = selected.cardinality();
  return response;
}

StatusOr<FacetResponse> Engine::Facets(std::string_view collection,
                                       const FacetRequest& request) const {
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> c, impl_->Find(collection));
  const Deadline deadline(request.bounds.deadline);
  FacetResponse response;
  response.field = request.field;
  const Field* field = c->schema().Find(request.field);
  if (field == nullptr) {
    response.rejected = Invalid("field", "field: no field '" + request.field + "' in the schema");
    return response;
  }
  const bool by_value = field->type == FieldType::kString || field->type == FieldType::kBool ||
                        field->type == FieldType::kStringSet;
  const std::string type(FieldTypeName(field->type));
  if (by_value && !request.ranges.empty()) {
    response.rejected = Invalid("ranges", "ranges: field '" + field->name + "' is " + type +
                                              ": its facets are values (top), not ranges");
    return response;
  }
  if (by_value && (request.top == 0 || request.top > kMaxFacetTop)) {
    response.rejected = Invalid("top", "top: must be in [1, " + std::to_string(kMaxFacetTop) + "]");
    return response;
  }
  if (!by_value && (request.ranges.empty() || request.ranges.size() > kMaxFacetRanges)) {
    response.rejected =
        Invalid("ranges", "ranges: field '" + field->name + "' is " + type + ": give 1 to " +
                              std::to_string(kMaxFacetRanges) + " ranges");
    return response;
  }
  // Each range as a filter leaf: from <= value < to.
  std::vector<filter::Node> leaves;
  for (std::size_t i = 0; !by_value && i < request.ranges.size(); ++i) {
    filter::Node leaf;
    leaf.op = filter::Op::kRange;
    leaf.slot = field->slot;
    const FacetRange& r = request.ranges[i];
    for (const auto& [bound, side, inclusive] :
         {std::tuple{&r.from, "from", true}, std::tuple{&r.to, "to", false}}) {
      if (!*bound) continue;
      const std::optional<Value> literal = RangeLiteral(**bound, field->type);
      const std::string path = "ranges[" + std::to_string(i) + "]." + side;
      if (!literal) {
        response.rejected = Invalid(path, path + ": '" + **bound + "' is not a value of " + type +
                                              " field '" + field->name + "'");
        return response;
      }
      (std::string_view(side) == "from" ? leaf.lo : leaf.hi) = filter::Bound{*literal, inclusive};
    }
    leaves.push_back(std::move(leaf));
  }
  const Selection compiled = Compile(*c, request.selection, impl_->Now());
  if ((response.rejected = compiled.rejected)) return response;
  const Collection::Reader reader = c->Read();
  ASSIGN_OR_RETURN(const roaring::Roaring selected,
                   Selected(reader, *c, compiled, request.selection.scope, deadline));
  if (!by_value) {
    const std::vector<std::uint64_t> counts =
        reader.metadata().CountWithin(leaves, selected, &deadline);
    for (std::size_t i = 0; i < leaves.size(); ++i) {
      response.ranges.push_back(FacetRangeCount{request.ranges[i], counts[i]});
    }
    RETURN_IF_ERROR(deadline.Check("facets"));
    return response;
  }
  std::vector<std::pair<Value, std::uint64_t>> counts =
      reader.metadata().CountValues(field->slot, selected, &deadline);
  RETURN_IF_ERROR(deadline.Check("facets"));
  // Most frequent first; ties keep the field's value order.
  std::stable_sort(counts.begin(), counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (counts.size() > request.top) counts.resize(request.top);
  for (const auto& [value, n] : counts) {
    const bool* b = std::get_if<bool>(&value);
    response.values.push_back(
        FacetValue{b != nullptr ? (*b ? "true" : "false")
                                : json::Dump(json::Value(std::get<std::string>(value))),
                   n});
  }
  return response;
}

}  // namespace engram
