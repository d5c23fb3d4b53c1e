# cmake -DBUILD=<build dir> -DPREFIX=<prefix> -DMOVED=<folder> -DFORBIDDEN=<path;...> -P install_parts.cmake
# Installs the components core and comm alone into PREFIX, as a packager would; fails if an
# installed CMake file names a path of this machine (the build tree, the prefix, where the
# dependencies live); then moves the prefix to MOVED, so that consumers configured against
# MOVED prove it relocatable.
file(REMOVE_RECURSE ${PREFIX} ${MOVED})
foreach(component core comm)
  execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${PREFIX} --component ${component}
                  RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "cmake --install --component ${component} failed")
  endif()
endforeach()
file(GLOB_RECURSE installed ${PREFIX}/*.cmake)
foreach(file IN LISTS installed)
  file(READ ${file} text)
  foreach(path IN LISTS FORBIDDEN PREFIX BUILD)
    string(FIND "${text}" "${path}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${file} names ${path}: the prefix cannot be moved")
    endif()
  endforeach()
endforeach()
if(EXISTS ${PREFIX}/lib/cmake/Karman/KarmanLbmTargets.cmake OR EXISTS ${PREFIX}/include/karman/lbm)
  message(FATAL_ERROR "--component core and comm installed the solvers too")
endif()
file(RENAME ${PREFIX} ${MOVED})
