#!/usr/bin/env bash
# Fails when a component includes a component it must not (docs/architecture.md).
# Data flows one way: base <- schema <- filter stages <- engine <- cli <- app,
# and base <- text/tokenize <- text/query <- engine, base <- vector;
# server/common <- server/mcp <- server/http <- cli;
# front-ends see only include/engram/. Tests (*_test.cc, test_*.h) may
# include what they test and its neighbours.
set -euo pipefail
cd "$(dirname "$0")/.."

# component -> components it may include (besides itself)
declare -A allowed=(
  [engram]=""
  [base]="engram"
  [schema]="engram base"
  [filter/ast]="engram base"
  [filter/ir]="engram base schema filter/ast"
  [filter/eval]="engram base schema filter/ast filter/ir"
  [filter/check]="engram base schema filter/ast filter/ir"
  [filter/dialects]="engram base filter/ast filter/check"
  [filter/optimize]="engram base schema filter/ast filter/ir filter/eval"
  [filter/translate]="engram base schema filter/ast filter/ir filter/check filter/dialects"
  [filter]="engram base schema filter/ast filter/ir filter/eval filter/check filter/dialects filter/optimize filter/translate"
  [text/tokenize]="engram base"
  [text/query]="engram base text/tokenize"
  [text/index]="engram base text/tokenize text/query"
  [text/rank]="engram base text/tokenize text/query text/index"
  [vector]="engram base"
  [index]="engram base schema filter/ast filter/ir filter/eval"
  [search]="engram base schema filter filter/ir filter/eval filter/translate index text/query text/index text/rank vector"
  [storage]="engram base"
  [embed]="engram base"
  [engine]="engram base schema filter filter/ast filter/ir filter/eval filter/check filter/dialects filter/optimize filter/translate text/tokenize text/query text/index text/rank vector index storage search embed"
  [server/common]="engram"
  [server/mcp]="engram server/common"
  [server/http]="engram server/common server/mcp"
  [cli]="engram server/http server/mcp"
  [app]="cli"
)

# The component an include path ("filter/ir/ir.h") or a source file belongs
# to, in $comp_of (set without a subshell: this runs for every include).
component_of() {
  local p=$1 first rest
  first=${p%%/*}
  rest=${p#*/}
  case "$p" in
    engram/*) comp_of=engram ;;
    filter/*/* | text/*/* | server/*/*) comp_of="$first/${rest%%/*}" ;;
    vector/*) comp_of=vector ;;
    */*) comp_of=$first ;;
    *) comp_of="" ;;
  esac
}

status=0
# One line per quoted include, "FILE:PATH", from one pass over the sources.
while IFS=: read -r file inc; do
  case "$file" in
    include/engram/*) comp=engram ;;
    app/*) comp=app ;;
    src/*) component_of "${file#src/}" && comp=$comp_of ;;
  esac
  base=${file##*/}
  [[ "$base" == *_test.cc || "$base" == test_*.h || "$base" == *_benchmark.cc ]] && continue
  component_of "$inc" && target=$comp_of
  [[ -z "$target" || "$target" == "$comp" ]] && continue
  ok=0
  for a in ${allowed[$comp]-}; do [[ "$a" == "$target" ]] && ok=1; done
  if [[ $ok -eq 0 ]]; then
    echo "layering: $file includes \"$inc\" ($comp must not depend on $target)"
    status=1
  fi
done < <(find include src app \( -name '*.h' -o -name '*.cc' \) | sort |
  xargs grep -HoE '^#include "[^"]+"' | sed -E 's/:#include "([^"]+)"$/:\1/')
[[ $status -eq 0 ]] && echo "layering: ok"
exit $status
