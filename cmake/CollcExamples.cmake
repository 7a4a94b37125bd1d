# CollcExamples.cmake - reading an example's header, shared by the test and
# bench folders that compile every dsl-examples/*.coll.
#
# collc_example_info(<file.coll> <alg-var> <COLLECTIVE-var> <rooted-var>)
#   alg:        the first algorithm's name
#   COLLECTIVE: its collective's ID (ALLREDUCE, ...), as coll.h's
#               COLL_<COLLECTIVE> and collmpi.h's COLLMPI_DECLARE_<COLLECTIVE>
#   rooted:     1 when the collective has a root, else 0
# The collective's row comes from the collective table,
# runtime/include/coll_collectives.def (read once per configure).

set(COLLC_COLLECTIVE_TABLE ${CMAKE_CURRENT_LIST_DIR}/../runtime/include/coll_collectives.def)

# Global properties (one configure run): COLLC_COLLECTIVE_<keyword> =
# "<ID>;<abi>;<rooted>" for every row, COLLC_COLLECTIVE_KEYWORDS in the
# table's order.
function(_collc_read_collective_table)
  get_property(_done GLOBAL PROPERTY COLLC_COLLECTIVE_KEYWORDS SET)
  if(_done)
    return()
  endif()
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${COLLC_COLLECTIVE_TABLE})
  file(READ ${COLLC_COLLECTIVE_TABLE} _table)
  set(_s "[ \t\r\n]*")
  set(_row "\nX\\(${_s}([A-Z_]+)${_s},${_s}\"([a-z_]+)\"${_s},${_s}([0-9]+)${_s},${_s}([01])${_s},")
  string(REGEX MATCHALL "${_row}" _rows "${_table}")
  set(_keywords "")
  foreach(_r ${_rows})
    string(REGEX REPLACE "${_row}" "\\1;\\2;\\3;\\4" _f "${_r}")
    list(GET _f 1 _kw)
    list(REMOVE_AT _f 1)
    list(APPEND _keywords ${_kw})
    set_property(GLOBAL PROPERTY COLLC_COLLECTIVE_${_kw} "${_f}")
  endforeach()
  if(NOT _keywords)
    message(FATAL_ERROR "${COLLC_COLLECTIVE_TABLE}: no row `X(ID, \"keyword\", abi, rooted, ...` found")
  endif()
  set_property(GLOBAL PROPERTY COLLC_COLLECTIVE_KEYWORDS "${_keywords}")
endfunction()

function(collc_example_info file alg_var coll_var rooted_var)
  _collc_read_collective_table()
  file(STRINGS ${file} _line REGEX "^algorithm[ \t]+[A-Za-z_0-9]+[ \t]*:[ \t]*[a-z_]+")
  list(GET _line 0 _line)
  string(REGEX REPLACE "^algorithm[ \t]+([A-Za-z_0-9]+)[ \t]*:[ \t]*([a-z_]+).*" "\\1" _alg "${_line}")
  string(REGEX REPLACE "^algorithm[ \t]+([A-Za-z_0-9]+)[ \t]*:[ \t]*([a-z_]+).*" "\\2" _coll "${_line}")
  get_property(_row GLOBAL PROPERTY COLLC_COLLECTIVE_${_coll})
  if(NOT _row)
    message(FATAL_ERROR "${file}: '${_coll}' is not a collective of ${COLLC_COLLECTIVE_TABLE}")
  endif()
  list(GET _row 0 _ID)
  list(GET _row 2 _rooted)
  set(${alg_var} ${_alg} PARENT_SCOPE)
  set(${coll_var} ${_ID} PARENT_SCOPE)
  set(${rooted_var} ${_rooted} PARENT_SCOPE)
endfunction()
