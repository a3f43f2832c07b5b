// The allowed-set type every retriever takes: a CRoaring bitmap of record
// numbers (SEARCH.md §2), under the name the CRoaring API uses today.
#ifndef ENGRAM_BASE_ROARING_H_
#define ENGRAM_BASE_ROARING_H_

#include <roaring/roaring.hh>

// Debian 12's CRoaring (0.2.66) declares the C++ class as ::Roaring; later
// releases put it in namespace roaring, the name the API uses.
namespace roaring {
using ::Roaring;
}  // namespace roaring

#endif  // ENGRAM_BASE_ROARING_H_
