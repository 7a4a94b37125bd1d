# CollcFunctions.cmake - compile .coll files into a target's build.
#
# collc_add_algorithm(<target> <file.coll>
#                     [TARGET cpu|mpi]          runtime target (default cpu)
#                     [MPI <mpi>]               with TARGET mpi: the MPI library, one of
#                                               COLLC_MPI_FLAVOURS (default: COLLC_MPI if
#                                               set, else the first of COLLC_MPI_FLAVOURS)
#                     [ALGORITHM <name>]        only this algorithm of the file
#                     [PREFIX <p>]              prepend p to every function name
#                     [DEFINES P=2 ...]         -D overrides of `param`s
#                     [OPTIMIZE 0|1|2|3]        LLVM -O level (default 2)
#                     [EMIT object|c]           LLVM object (default) or C source
#                     [STATIC])                 TARGET cpu: link collc::cpu_static
#
# Runs `collc compile` at build time (the schedule is verified first; a file
# that does not verify fails the build with collc's diagnostics), adds the
# result to <target>, links the runtime of TARGET (collc::cpu,
# collc::cpu_static or collc::mpi_<mpi>) and writes a header that declares
# what it compiled. Outputs are named <p><name>.o (or .c) and <p><name>.h,
# <name> the ALGORITHM or else the file's base name, in a folder of the
# target that is on its include path:
#
#   collc_add_algorithm(app ring.coll)                   ->  #include "ring.h"
#   collc_add_algorithm(app pipe.coll PREFIX k2_ DEFINES K=2)
#   collc_add_algorithm(app pipe.coll PREFIX k8_ DEFINES K=8)
#                        -> "k2_pipe.h", "k8_pipe.h": k2_NAME and k8_NAME
#
# TARGET cpu: functions with coll.h's signature, int NAME(coll_comm *, const
# void *, void *, size_t count, coll_dtype, coll_op[, int root]).
# TARGET mpi: NAME with the MPI collective's signature (docs/mpi.md).
# A target holds one runtime: cpu and mpi algorithms (or two MPI libraries)
# in one target are an error.

function(collc_add_algorithm tgt file)
  cmake_parse_arguments(PARSE_ARGV 2 CA "STATIC" "TARGET;MPI;ALGORITHM;PREFIX;OPTIMIZE;EMIT" "DEFINES")
  set(_fn "collc_add_algorithm(${tgt} ${file})")
  if(CA_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${_fn}: unknown arguments '${CA_UNPARSED_ARGUMENTS}'")
  endif()
  if(NOT TARGET ${tgt})
    message(FATAL_ERROR "${_fn}: '${tgt}' is not a target")
  endif()
  if(NOT CA_TARGET)
    set(CA_TARGET cpu)
  endif()
  if(NOT CA_OPTIMIZE)
    set(CA_OPTIMIZE 2)
  endif()
  if(NOT CA_EMIT)
    set(CA_EMIT object)
  endif()
  if(NOT CA_EMIT MATCHES "^(object|c)$")
    message(FATAL_ERROR "${_fn}: EMIT must be object or c, got '${CA_EMIT}'")
  endif()

  # The runtime the functions call.
  if(CA_TARGET STREQUAL "cpu")
    if(CA_MPI)
      message(FATAL_ERROR "${_fn}: MPI ${CA_MPI} goes with TARGET mpi")
    endif()
    set(_lib collc::cpu)
    if(CA_STATIC)
      set(_lib collc::cpu_static)
    endif()
  elseif(CA_TARGET STREQUAL "mpi")
    if(CA_STATIC)
      message(FATAL_ERROR "${_fn}: STATIC goes with TARGET cpu (the MPI runtime is a shared library)")
    endif()
    set(_mpi ${CA_MPI})
    if(NOT _mpi AND COLLC_MPI)
      set(_mpi ${COLLC_MPI})
    endif()
    if(NOT _mpi AND COLLC_MPI_FLAVOURS)
      list(GET COLLC_MPI_FLAVOURS 0 _mpi)
    endif()
    if(NOT COLLC_MPI_FLAVOURS)
      message(FATAL_ERROR "${_fn}: TARGET mpi, but this collc was built without an MPI library")
    endif()
    if(NOT _mpi IN_LIST COLLC_MPI_FLAVOURS)
      message(FATAL_ERROR "${_fn}: MPI '${_mpi}': this collc has an MPI runtime for ${COLLC_MPI_FLAVOURS}")
    endif()
    set(_lib collc::mpi_${_mpi})
  else()
    message(FATAL_ERROR "${_fn}: TARGET must be cpu or mpi, got '${CA_TARGET}'")
  endif()
  get_target_property(_runtime ${_lib} INTERFACE_COLLC_RUNTIME)
  get_target_property(_have ${tgt} COLLC_RUNTIME)
  if(_have AND NOT _have STREQUAL _runtime)
    message(FATAL_ERROR "${_fn}: ${tgt} already has algorithms for the ${_have} runtime; this one "
      "needs ${_runtime}. Both runtimes define coll.h's transport functions (coll_begin, "
      "coll_send, ...), so one program can hold only one of them: put these algorithms into "
      "another target.")
  endif()
  # Also what CMake checks against the INTERFACE_COLLC_RUNTIME of everything
  # the target links (cmake/CollcInstall.cmake).
  set_property(TARGET ${tgt} PROPERTY COLLC_RUNTIME ${_runtime})

  get_filename_component(_abs "${file}" ABSOLUTE)
  get_filename_component(_name "${file}" NAME_WE)
  set(_args compile "${_abs}" --target=${CA_TARGET} -O${CA_OPTIMIZE})
  if(CA_ALGORITHM)
    list(APPEND _args --algorithm ${CA_ALGORITHM})
    set(_name ${CA_ALGORITHM})
  endif()
  if(CA_PREFIX)
    if(NOT CA_PREFIX MATCHES "^[A-Za-z_][A-Za-z_0-9]*$")
      message(FATAL_ERROR "${_fn}: PREFIX '${CA_PREFIX}' is not the start of a C identifier")
    endif()
    list(APPEND _args --prefix=${CA_PREFIX})
    set(_name "${CA_PREFIX}${_name}")
  endif()
  foreach(_d ${CA_DEFINES})
    list(APPEND _args -D ${_d})
  endforeach()

  get_target_property(_outputs ${tgt} COLLC_OUTPUTS)
  if(_outputs AND _name IN_LIST _outputs)
    message(FATAL_ERROR "${_fn}: ${tgt} already has an algorithm output named '${_name}'; give "
      "this one a PREFIX (or another ALGORITHM)")
  endif()
  set_property(TARGET ${tgt} APPEND PROPERTY COLLC_OUTPUTS ${_name})

  set(_dir "${CMAKE_CURRENT_BINARY_DIR}/collc/${tgt}")
  set(_header "${_dir}/${_name}.h")
  if(CA_EMIT STREQUAL "c")
    set(_out "${_dir}/${_name}.c")
    list(APPEND _args --emit=c)
  else()
    set(_out "${_dir}/${_name}.o")
    list(APPEND _args -c)
  endif()
  add_custom_command(OUTPUT "${_out}" "${_header}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${_dir}"
    COMMAND collc::collc ${_args} -o "${_out}" "--emit-header=${_header}"
    DEPENDS "${_abs}" collc::collc
    COMMENT "collc compile ${file} (${tgt}: ${_name})"
    VERBATIM)
  target_sources(${tgt} PRIVATE "${_out}" "${_header}")
  target_include_directories(${tgt} PRIVATE "${_dir}")
  target_link_libraries(${tgt} PRIVATE ${_lib})
endfunction()
