#include "storage/postgres/changes.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "base/status.h"
#include "storage/postgres/statements.h"
#include "storage/printable.h"

namespace engram::storage::postgres {
namespace {

StatusOr<Change::Kind> KindOf(std::int64_t kind, bool* config) {
  *config = false;
  switch (static_cast<ChangeKind>(kind)) {
    case ChangeKind::kCreate:
      return Change::Kind::kCreate;
    case ChangeKind::kDrop:
      return Change::Kind::kDrop;
    case ChangeKind::kConfig:
      *config = true;
      return Change::Kind::kBatch;
    case ChangeKind::kBatch:
      return Change::Kind::kBatch;
    case ChangeKind::kSnapshot:
      return Change::Kind::kSnapshot;
  }
  return Status::Corruption(fmt::format("unknown change kind {}", kind));
}

// One row of engram_changes.
StatusOr<Change> ChangeOf(const PGresult* r, int row) {
  Change change;
  const std::int64_t seq = CellInt(r, row, 0);
  if (seq <= 0) return Status::Corruption(fmt::format("change sequence {}", seq));
  change.seq = static_cast<std::uint64_t>(seq);
  ASSIGN_OR_RETURN(change.kind, KindOf(CellInt(r, row, 1), &change.config));
  change.collection = std::string(CellBytes(r, row, 2));
  ASSIGN_OR_RETURN(change.removes, DecodeList(CellBytes(r, row, 3)));
  ASSIGN_OR_RETURN(std::vector<std::string> touches, DecodeList(CellBytes(r, row, 4)));
  if (touches.size() % 2 != 0) return Status::Corruption("a touch without its body");
  for (std::size_t i = 0; i < touches.size(); i += 2) {
    change.touches.push_back({std::move(touches[i]), std::move(touches[i + 1])});
  }
  change.snapshot = std::string(CellBytes(r, row, 5));
  return change;
}

}  // namespace

Status ReadChanges(Connection& c, std::int64_t after, std::size_t max, std::vector<Change>* out) {
  const std::size_t first = out->size();
  const auto limit = static_cast<std::int64_t>(
      std::min<std::size_t>(max, std::numeric_limits<std::int32_t>::max()));
  ASSIGN_OR_RETURN(Result changes,
                   c.Run(Sql::kReadChanges, Params().Int(after).Int(limit), "read the changes"));
  std::int64_t expected = after + 1;
  for (int row = 0; row < PQntuples(changes.get()); ++row, ++expected) {
    ASSIGN_OR_RETURN(Change change, ChangeOf(changes.get(), row));
    if (row == 0 && change.seq > static_cast<std::uint64_t>(expected)) {
      return Status::NotFound(
          fmt::format("the changes after {} were trimmed from the feed (the oldest kept is {})",
                      after, change.seq));
    }
    if (change.seq != static_cast<std::uint64_t>(expected)) {
      return Status::Corruption(
          fmt::format("change {} is missing (the next is {})", expected, change.seq));
    }
    out->push_back(std::move(change));
  }
  if (out->size() == first) return Status::Ok();
  const auto batches =
      std::count_if(out->begin() + static_cast<std::ptrdiff_t>(first), out->end(),
                    [](const Change& x) { return x.kind == Change::Kind::kBatch; });
  if (batches == 0) return Status::Ok();
  ASSIGN_OR_RETURN(
      Result puts,
      c.Run(Sql::kReadPuts, Params().Int(after).Int(static_cast<std::int64_t>(out->back().seq)),
            "read the records of the changes"));
  for (int row = 0; row < PQntuples(puts.get()); ++row) {
    const auto seq = static_cast<std::uint64_t>(CellInt(puts.get(), row, 1));
    // The changes are numbered after+1, after+2, ... in order.
    const std::uint64_t index = seq - static_cast<std::uint64_t>(after) - 1;
    if (seq <= static_cast<std::uint64_t>(after) || index >= out->size() - first) {
      return Status::Corruption(fmt::format("a record of sequence {} outside the changes", seq));
    }
    Change& change = (*out)[first + index];
    const std::string_view collection = CellBytes(puts.get(), row, 0);
    if (change.kind != Change::Kind::kBatch || change.collection != collection) {
      return Status::Corruption(
          fmt::format("a record of collection '{}' under change {}", Printable(collection), seq));
    }
    const std::int64_t doc = CellInt(puts.get(), row, 2);
    change.puts.push_back(
        {std::string(CellBytes(puts.get(), row, 3)), static_cast<std::uint32_t>(doc),
         std::string(CellBytes(puts.get(), row, 4)), std::string(CellBytes(puts.get(), row, 5))});
  }
  return Status::Ok();
}

}  // namespace engram::storage::postgres
