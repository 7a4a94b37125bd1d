# CollcExamples.cmake - reading an example's header, shared by the test and
# bench folders that compile every dsl-examples/*.coll.
#
# collc_example_info(<file.coll> <alg-var> <COLLECTIVE-var> <rooted-var>)
#   alg:        the first algorithm's name
#   COLLECTIVE: its collective in upper case (ALLREDUCE, ...), as coll.h's
#               COLL_<COLLECTIVE>
#   rooted:     1 for broadcast/scatter/gather/reduce, else 0
function(collc_example_info file alg_var coll_var rooted_var)
  file(STRINGS ${file} _line REGEX "^algorithm[ \t]+[A-Za-z_0-9]+[ \t]*:[ \t]*[a-z_]+")
  list(GET _line 0 _line)
  string(REGEX REPLACE "^algorithm[ \t]+([A-Za-z_0-9]+)[ \t]*:[ \t]*([a-z_]+).*" "\\1" _alg "${_line}")
  string(REGEX REPLACE "^algorithm[ \t]+([A-Za-z_0-9]+)[ \t]*:[ \t]*([a-z_]+).*" "\\2" _coll "${_line}")
  string(TOUPPER "${_coll}" _COLL)
  set(_rooted 0)
  if(_coll MATCHES "^(broadcast|scatter|gather|reduce)$")
    set(_rooted 1)
  endif()
  set(${alg_var} ${_alg} PARENT_SCOPE)
  set(${coll_var} ${_COLL} PARENT_SCOPE)
  set(${rooted_var} ${_rooted} PARENT_SCOPE)
endfunction()
