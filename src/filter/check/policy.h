// Policy: the knobs by which the four dialects' typing rules differ
// (FILTERS.md §2). One checker reads them; each dialect fills one in.
#ifndef ENGRAM_FILTER_CHECK_POLICY_H_
#define ENGRAM_FILTER_CHECK_POLICY_H_

#include <cstddef>

#include "base/time.h"

namespace engram::filter {

struct Policy {
  std::size_t max_depth = 16;  // filter nodes on the deepest path, root = 1
  std::size_t max_nodes = 256;
  // Field names match the schema ignoring ASCII case (expr_v1).
  bool field_names_ignore_case = false;
  // A literal is read as the type of the field it meets (every dialect but
  // `retrieve`, where a literal has its JSON type and both sides of a
  // comparison may be fields or literals).
  bool typed_by_field = true;
  // eq on a set<string> field means "contains the element" (not `retrieve`).
  bool set_eq_is_membership = true;
  // lt/le/gt/ge/between also order strings, bytewise (vector_filter).
  bool string_order = false;
  // An op that does not apply to the field's type is reported before the
  // value is looked at, at the node's op_path (search_memory).
  bool op_before_value = false;
  // A null literal with eq means "absent" (expr_v1, vector_filter)...
  bool null_means_absent = false;
  // ...and only on optional fields (expr_v1).
  bool null_requires_optional = false;
  // String literals lose surrounding white space (expr_v1).
  bool trim_strings = false;
  // String literals longer than this many UTF-8 bytes are rejected; 0: none.
  std::size_t max_string_bytes = 0;
  DatetimeForm datetime_form = DatetimeForm::kLenient;
  // An int field takes only JSON integers, not 3.0 or 2.5 (search_memory).
  bool int_fields_take_integers_only = false;
  // contains "" is an error (search_memory).
  bool nonempty_contains = false;
};

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_CHECK_POLICY_H_
