# engram_component(NAME name SRCS ... DEPS ... [TESTS ...] [TEST_DEPS ...])
#
# One library target per component (abseil's absl_cc_library pattern). Sources are
# listed explicitly; unit tests beside the code become one test executable per
# component, registered with CTest and labelled with the component's name.
set(ENGRAM_WARNINGS -Wall -Wextra -Wshadow -Wnon-virtual-dtor
    -Wcast-align -Woverloaded-virtual -Wpedantic -Wimplicit-fallthrough)

# g++ 12 reports false -Wrestrict errors inside libstdc++'s std::string at -O2
# and above ("accessing 9223372036854775810 or more bytes"), e.g. for
# "r" + std::to_string(i): GCC bug 105329. The warning is switched off there
# only, so the release build stays -Werror clean without contorting code.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  list(APPEND ENGRAM_WARNINGS -Wno-restrict)
endif()

function(engram_apply_options target)
  target_compile_options(${target} PRIVATE ${ENGRAM_WARNINGS})
  if(ENGRAM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(ENGRAM_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
if(ENGRAM_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()

function(engram_component)
  cmake_parse_arguments(C "" "NAME" "SRCS;DEPS;TESTS;TEST_DEPS" ${ARGN})
  set(target engram_${C_NAME})
  add_library(${target} ${C_SRCS})  # STATIC unless BUILD_SHARED_LIBS
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR}/src
                                              ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(${target} PUBLIC ${C_DEPS})
  engram_apply_options(${target})
  if(ENGRAM_TESTS AND C_TESTS)
    add_executable(${target}_test ${C_TESTS})
    target_link_libraries(${target}_test PRIVATE ${target} ${C_TEST_DEPS}
                          GTest::gtest GTest::gtest_main)
    engram_apply_options(${target}_test)
    gtest_discover_tests(${target}_test
      PROPERTIES LABELS "unit;${C_NAME}"
      DISCOVERY_TIMEOUT 60
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  endif()
endfunction()
