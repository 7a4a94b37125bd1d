# CollcFunctions.cmake - compile .coll files into a target's build.
#
# collc_add_algorithm(<target> <file.coll>
#                     [TARGET cpu|mpi]          runtime target (default cpu)
#                     [ALGORITHM <name>]        only this algorithm of the file
#                     [DEFINES P=2 ...]         -D overrides of `param`s
#                     [OPTIMIZE 0|1|2|3]        LLVM -O level (default 2)
#                     [EMIT object|c]           LLVM object (default) or C source
#                     [STATIC])                 link collc::collrt_static
#
# Runs `collc compile` at build time (the schedule is verified first; a file
# that does not verify fails the build with collc's diagnostics), adds the
# result to <target> and links the runtime. Functions have the signature of
# coll.h: int NAME(coll_comm *, const void *, void *, size_t, coll_dtype,
# coll_op[, int root]).
function(collc_add_algorithm tgt file)
  cmake_parse_arguments(CA "STATIC" "TARGET;ALGORITHM;OPTIMIZE;EMIT" "DEFINES" ${ARGN})
  if(NOT CA_TARGET)
    set(CA_TARGET cpu)
  endif()
  if(NOT CA_TARGET MATCHES "^(cpu|mpi)$")
    message(FATAL_ERROR "collc_add_algorithm: TARGET must be cpu or mpi, got '${CA_TARGET}'")
  endif()
  if(NOT CA_OPTIMIZE)
    set(CA_OPTIMIZE 2)
  endif()
  if(NOT CA_EMIT)
    set(CA_EMIT object)
  endif()
  get_filename_component(_abs "${file}" ABSOLUTE)
  get_filename_component(_name "${file}" NAME_WE)
  set(_args compile "${_abs}" --target=${CA_TARGET} -O${CA_OPTIMIZE})
  if(CA_ALGORITHM)
    list(APPEND _args --algorithm ${CA_ALGORITHM})
    set(_name "${_name}_${CA_ALGORITHM}")
  endif()
  foreach(_d ${CA_DEFINES})
    list(APPEND _args -D ${_d})
  endforeach()
  set(_dir "${CMAKE_CURRENT_BINARY_DIR}/collc")
  if(CA_EMIT STREQUAL "c")
    set(_out "${_dir}/${_name}.c")
    list(APPEND _args --emit=c)
  else()
    set(_out "${_dir}/${_name}.o")
    list(APPEND _args -c)
  endif()
  add_custom_command(OUTPUT "${_out}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${_dir}"
    COMMAND collc::collc ${_args} -o "${_out}"
    DEPENDS "${_abs}" collc::collc
    COMMENT "collc compile ${file}"
    VERBATIM)
  target_sources(${tgt} PRIVATE "${_out}")
  if(CA_STATIC)
    target_link_libraries(${tgt} PRIVATE collc::collrt_static)
  else()
    target_link_libraries(${tgt} PRIVATE collc::collrt)
  endif()
endfunction()
