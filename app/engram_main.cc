// The `engram` executable.
#include <iostream>

#include "cli/cli.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  return engram::cli::Run(argc, argv, std::cin, std::cout, std::cerr);
}
