// Bytes from a store (ids, names) made safe to quote in an error message.
#ifndef ENGRAM_STORAGE_PRINTABLE_H_
#define ENGRAM_STORAGE_PRINTABLE_H_

#include <string>
#include <string_view>

namespace engram::storage {

// `bytes` for an error message: printable ASCII kept, the rest escaped as
// \xNN, cut at 80 characters.
std::string Printable(std::string_view bytes);

}  // namespace engram::storage

#endif  // ENGRAM_STORAGE_PRINTABLE_H_
