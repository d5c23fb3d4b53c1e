# Runs error_exit under mpiexec and checks the error path (issue 5): a non-zero exit, the
# message printed exactly once, no hang (TIMEOUT); for the collective mode also that every rank
# left main with 1 through a normal MPI_Finalize.
# Inputs: MPIEXEC, NUMPROC_FLAG, NP, FLAGS, EXE, MODE, MESSAGE, WORK_DIR.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
execute_process(COMMAND ${MPIEXEC} ${NUMPROC_FLAG} ${NP} ${FLAGS} ${EXE} ${MODE} ${WORK_DIR}
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
message(STATUS "exit: ${result}\nstdout:\n${out}\nstderr:\n${err}")
if(result STREQUAL "0" OR result MATCHES "timeout")
  message(FATAL_ERROR "expected a non-zero exit, got '${result}'")
endif()
string(REGEX MATCHALL "karman: error[^\n]*${MESSAGE}" printed "${out}${err}")
list(LENGTH printed times)
if(NOT times EQUAL 1)
  message(FATAL_ERROR "expected the message '${MESSAGE}' once, printed ${times} times")
endif()
if(MODE STREQUAL "collective")
  math(EXPR last "${NP} - 1")
  foreach(r RANGE ${last})
    if(NOT EXISTS ${WORK_DIR}/rank${r}.exit)
      message(FATAL_ERROR "rank ${r} did not leave main normally")
    endif()
    file(STRINGS ${WORK_DIR}/rank${r}.exit code)
    if(NOT code STREQUAL "1")
      message(FATAL_ERROR "rank ${r} exited with '${code}', expected 1")
    endif()
  endforeach()
endif()
