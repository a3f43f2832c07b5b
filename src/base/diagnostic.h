// Internal name for the public Diagnostic / Checked<T> (engram/diagnostic.h).
#ifndef ENGRAM_BASE_DIAGNOSTIC_H_
#define ENGRAM_BASE_DIAGNOSTIC_H_

#include "engram/diagnostic.h"

#endif  // ENGRAM_BASE_DIAGNOSTIC_H_
