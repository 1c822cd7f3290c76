# Read by ctest (TEST_INCLUDE_FILES, tests/CMakeLists.txt) in a sanitizer build: one test per GoogleTest suite of
# GPUBENCH_SUITES_BINARY, named `Suite.*` and run as `--gtest_filter=Suite.*`, label `cpu`. A binary that cannot
# list its tests becomes one failing test that says so, rather than no tests.
if(NOT EXISTS "${GPUBENCH_SUITES_BINARY}")
  add_test(gpubench_tests_NOT_BUILT "${GPUBENCH_SUITES_BINARY}")
  set_tests_properties(gpubench_tests_NOT_BUILT PROPERTIES LABELS cpu)
  return()
endif()
execute_process(COMMAND "${GPUBENCH_SUITES_BINARY}" --gtest_list_tests
                OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  add_test(gpubench_tests_NOT_LISTED "${GPUBENCH_SUITES_BINARY}" --gtest_list_tests)
  set_tests_properties(gpubench_tests_NOT_LISTED PROPERTIES LABELS cpu)
  return()
endif()
string(REPLACE "\n" ";" lines "${listing}")
get_filename_component(folder "${GPUBENCH_SUITES_BINARY}" DIRECTORY)
foreach(line IN LISTS lines)
  # A suite line is the suite's name and a dot at the start of the line ("  Test" lines are indented; typed and
  # parameterized suites add "  # TypeParam = …" after the dot).
  if(line MATCHES "^([A-Za-z_][A-Za-z0-9_/]*)\\.")
    set(suite "${CMAKE_MATCH_1}")
    add_test("${suite}.*" "${GPUBENCH_SUITES_BINARY}" "--gtest_filter=${suite}.*")
    set_tests_properties("${suite}.*" PROPERTIES LABELS cpu WORKING_DIRECTORY "${folder}")
  endif()
endforeach()
