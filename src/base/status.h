// Internal helpers around engram::Status: the early-return macros every
// component uses to propagate failures with context.
#ifndef ENGRAM_BASE_STATUS_H_
#define ENGRAM_BASE_STATUS_H_

#include "engram/status.h"

#define ENGRAM_CONCAT_INNER_(a, b) a##b
#define ENGRAM_CONCAT_(a, b) ENGRAM_CONCAT_INNER_(a, b)

// Returns from the enclosing function if `expr` (a Status) is not OK.
#define RETURN_IF_ERROR(expr)                        \
  do {                                               \
    ::engram::Status engram_status_ = (expr);        \
    if (!engram_status_.ok()) return engram_status_; \
  } while (0)

// `lhs = value of expr` (a StatusOr), or returns its Status.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL_(ENGRAM_CONCAT_(engram_statusor_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                           \
  if (!tmp.ok()) return tmp.status();          \
  lhs = std::move(tmp).value()

#endif  // ENGRAM_BASE_STATUS_H_
