# cmake -DROOT=<include root> -DLIBRARY=<core|comm> [-DGENERATED=<header ...>] -P check_umbrella.cmake
# Fails unless karman/<LIBRARY>/<LIBRARY>.hpp includes every public header of its library (those
# under ROOT and the GENERATED ones), so "everything in one include" stays true as headers are added.
file(GLOB_RECURSE headers RELATIVE ${ROOT} ${ROOT}/karman/${LIBRARY}/*.hpp)
list(APPEND headers ${GENERATED})
file(READ ${ROOT}/karman/${LIBRARY}/${LIBRARY}.hpp umbrella)
set(missing)
foreach(header IN LISTS headers)
  if(NOT header STREQUAL "karman/${LIBRARY}/${LIBRARY}.hpp")
    string(FIND "${umbrella}" "#include <${header}>" at)
    if(at EQUAL -1)
      list(APPEND missing ${header})
    endif()
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "karman/${LIBRARY}/${LIBRARY}.hpp leaves out: ${missing}")
endif()
