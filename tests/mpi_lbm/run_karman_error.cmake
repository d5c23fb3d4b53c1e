# Runs karman under mpiexec with bad input and checks the error path (issue 5 tests, bullet 3;
# docs/architecture.md, comm::Ranks: every rank agrees and nothing hangs): a non-zero exit within the time
# limit, exactly one "karman: error" line, carrying MESSAGE, no MPI_Abort (bad input found
# before the time loop is agreed on by all ranks, which then leave main normally), and no
# summary written. mpiexec reports only the first non-zero exit and then kills the other
# ranks, so a second run wraps each rank in a shell that records karman's exit code and
# exits 0: every rank must have left karman by itself with a non-zero code.
# Inputs: MPIEXEC, NUMPROC_FLAG, NP, FLAGS, EXE, ARGS (list), MESSAGE (regex), WORK_DIR.
# The command runs in WORK_DIR, which holds a regular file `not_a_directory`.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
file(WRITE ${WORK_DIR}/not_a_directory "a regular file, so nothing can be created below it\n")
execute_process(COMMAND ${MPIEXEC} ${NUMPROC_FLAG} ${NP} ${FLAGS} ${EXE} ${ARGS} WORKING_DIRECTORY ${WORK_DIR}
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
message(STATUS "karman ${ARGS}\nexit: ${result}\nstdout:\n${out}\nstderr:\n${err}")
if(result STREQUAL "0" OR result MATCHES "timeout")
  message(FATAL_ERROR "expected a non-zero exit, got '${result}'")
endif()
string(REGEX MATCHALL "karman: error" errors "${out}${err}")
list(LENGTH errors error_lines)
if(NOT error_lines EQUAL 1)
  message(FATAL_ERROR "expected one 'karman: error' line, got ${error_lines}")
endif()
string(REGEX MATCHALL "karman: error[^\n]*${MESSAGE}" printed "${out}${err}")
list(LENGTH printed times)
if(NOT times EQUAL 1)
  message(FATAL_ERROR "expected the error line to say '${MESSAGE}', printed ${times} times")
endif()
if("${out}${err}" MATCHES "MPI_ABORT")
  message(FATAL_ERROR "a rank called MPI_Abort: the ranks did not agree on the error")
endif()
file(GLOB_RECURSE summaries ${WORK_DIR}/*summary.json)
if(summaries)
  message(FATAL_ERROR "a failed run wrote ${summaries}")
endif()

# The rank variable of the launcher: OpenMPI, then MPICH/Intel MPI, then PMIx.
set(record [=[
"$@"
code=$?
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${PMIX_RANK:-unknown}}}
echo $code > "exit_codes/rank$rank"
]=])
file(MAKE_DIRECTORY ${WORK_DIR}/exit_codes)
execute_process(COMMAND ${MPIEXEC} ${NUMPROC_FLAG} ${NP} ${FLAGS} sh -c "${record}" karman ${EXE} ${ARGS}
                WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE result OUTPUT_QUIET ERROR_QUIET TIMEOUT 60)
if(NOT result STREQUAL "0")
  message(FATAL_ERROR "the run with recorded exit codes ended with '${result}'")
endif()
math(EXPR last "${NP} - 1")
foreach(r RANGE ${last})
  if(NOT EXISTS ${WORK_DIR}/exit_codes/rank${r})
    message(FATAL_ERROR "no exit code recorded for rank ${r}")
  endif()
  file(STRINGS ${WORK_DIR}/exit_codes/rank${r} code)
  if(NOT code MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "rank ${r} left karman with '${code}', expected a non-zero code")
  endif()
endforeach()
