# WavelabTests.cmake — register a folder of wavelab case files as CTest tests.
#
#   wavelab_add_case_tests(DIRECTORY dir
#                          [WAVES 8 32 64]      # wave sizes; default: each case's own subgroup_size, else 32
#                          [PREFIX name]        # test name prefix; default: the folder's name
#                          [LABELS label...]    # CTest labels
#                          [COMMAND path])      # the wavelab command; default: the wavelab::cli target
#
# Adds one test per case file (*.json, searched recursively, sorted) and wave size, named
# PREFIX/RELATIVE/PATH/wave<N> (PREFIX/RELATIVE/PATH without WAVES), running
# `wavelab test CASE --wave N`: it passes when every expectation of the case holds, fails on a failed
# expectation, a kernel fault or bad input, and is reported as skipped when the case has no "expect".
# Cases are globbed at configure time (CONFIGURE_DEPENDS: a new file re-runs the configure step).
function(wavelab_add_case_tests)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DIRECTORY;PREFIX;COMMAND" "WAVES;LABELS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "wavelab_add_case_tests: unexpected arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_DIRECTORY)
    message(FATAL_ERROR "wavelab_add_case_tests: DIRECTORY is required")
  endif()
  get_filename_component(dir "${ARG_DIRECTORY}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT IS_DIRECTORY "${dir}")
    message(FATAL_ERROR "wavelab_add_case_tests: ${dir} is not a folder")
  endif()
  if(ARG_COMMAND)
    set(command "${ARG_COMMAND}")
  elseif(TARGET wavelab::cli)
    set(command "$<TARGET_FILE:wavelab::cli>")
  elseif(TARGET wavelab)
    get_target_property(type wavelab TYPE)
    if(type STREQUAL "EXECUTABLE")
      set(command "$<TARGET_FILE:wavelab>")
    endif()
  endif()
  if(NOT command)
    message(FATAL_ERROR "wavelab_add_case_tests: no wavelab command: find_package(wavelab) first, or give COMMAND")
  endif()
  if(NOT ARG_PREFIX)
    get_filename_component(ARG_PREFIX "${dir}" NAME)
  endif()
  file(GLOB_RECURSE cases CONFIGURE_DEPENDS "${dir}/*.json")
  list(SORT cases)
  if(NOT cases)
    message(FATAL_ERROR "wavelab_add_case_tests: no case files (*.json) under ${dir}")
  endif()
  set(waves ${ARG_WAVES})
  if(NOT waves)
    set(waves 0)
  endif()
  foreach(case IN LISTS cases)
    file(RELATIVE_PATH rel "${dir}" "${case}")
    string(REGEX REPLACE "\\.json$" "" rel "${rel}")
    foreach(wave IN LISTS waves)
      if(wave EQUAL 0)
        set(name "${ARG_PREFIX}/${rel}")
        set(wave_args)
      else()
        set(name "${ARG_PREFIX}/${rel}/wave${wave}")
        set(wave_args --wave ${wave})
      endif()
      add_test(NAME "${name}" COMMAND ${command} test "${case}" ${wave_args} --jobs 1)
      # nothing passed or failed: a case without "expect", a wave size the case excludes, or a known failure that
      # still fails (CTest has no expected failure); `wavelab test` ends "0 passed, 0 failed, N skipped, N xfail"
      set_tests_properties("${name}" PROPERTIES SKIP_REGULAR_EXPRESSION "^0 passed, 0 failed")
      if(ARG_LABELS)
        set_tests_properties("${name}" PROPERTIES LABELS "${ARG_LABELS}")
      endif()
    endforeach()
  endforeach()
endfunction()
