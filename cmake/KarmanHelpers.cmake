# Shared build settings for Karman's own targets (never exported to consumers).

add_library(karman_warnings INTERFACE)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(karman_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
endif()

# karman_add_test(NAME name SOURCES ... [LABELS ...] [RANKS n ...] [LIBS ...] [TIMEOUT s])
# One GoogleTest executable registered once per rank count; MPI rank counts > 1 run under mpiexec.
function(karman_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LABELS;RANKS;LIBS;ARGS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} karman_test_main karman_warnings)
  if(NOT T_RANKS)
    set(T_RANKS 1)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  foreach(n IN LISTS T_RANKS)
    list(LENGTH T_RANKS nvariants)
    if(nvariants GREATER 1 OR n GREATER 1)
      set(test_name ${T_NAME}_np${n})
    else()
      set(test_name ${T_NAME})
    endif()
    if(n GREATER 1 OR "mpi" IN_LIST T_LABELS)
      add_test(NAME ${test_name} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n} ${KARMAN_MPIEXEC_FLAGS}
                                         $<TARGET_FILE:${T_NAME}> ${T_ARGS})
    else()
      add_test(NAME ${test_name} COMMAND ${T_NAME} ${T_ARGS})
    endif()
    set_tests_properties(${test_name} PROPERTIES LABELS "${T_LABELS}" PROCESSORS ${n} TIMEOUT ${T_TIMEOUT}
                                                 ENVIRONMENT "${KARMAN_TEST_ENVIRONMENT}")
  endforeach()
endfunction()

# karman_add_header_check(NAME <target> ROOT <include root> PATTERN <glob below it> LIBS <targets>)
# Every header matching PATTERN compiles on its own and when included twice (ArborX
# headers_self_contained): one generated source per header, built as an object library. Only
# with KARMAN_HEADER_CHECKS (`make test`, so CI, turns it on): a hundred compiles that a user's
# first build does not need.
function(karman_add_header_check)
  if(NOT KARMAN_HEADER_CHECKS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "NAME;ROOT;PATTERN" "LIBS" ${ARGN})
  file(GLOB_RECURSE headers RELATIVE ${ARG_ROOT} CONFIGURE_DEPENDS ${ARG_ROOT}/${ARG_PATTERN})
  set(sources)
  foreach(header IN LISTS headers)
    string(MAKE_C_IDENTIFIER ${header} id)
    set(src ${CMAKE_CURRENT_BINARY_DIR}/headers/${id}.cpp)
    file(CONFIGURE OUTPUT ${src} CONTENT "#include <${header}>\n#include <${header}>\n")
    list(APPEND sources ${src})
  endforeach()
  add_library(${ARG_NAME} OBJECT ${sources})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_LIBS} karman_warnings)
endfunction()
