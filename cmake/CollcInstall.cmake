# CollcInstall.cmake - what `cmake --install` puts into a prefix and the
# CMake package (find_package(collc), cmake/collcConfig.cmake.in) that
# describes it. Included by the top-level CMakeLists.txt (the helper
# collc_install_runtime before the targets, the rest after them).
#
# Installed layout (GNUInstallDirs):
#   bin/collc, bin/sg2260-sim
#   include/coll.h, coll_collectives.def, coll_cpu.h, collmpi.h
#   lib/libcollrt.so, libcollrt.a                  collc::cpu, collc::cpu_static
#   lib/collc/<mpi>/libcollrt-mpi.so                collc::mpi_<mpi>
#   lib/collc/<mpi>/libcollmpi.so (PMPI library)    collc::pmpi_<mpi>
#   lib/cmake/collc/                                the package
#   share/collc/dsl-examples/*.coll, share/collc/machines/*.machine
#   share/doc/collc/                                README.md, docs/*.md
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Data files (machine files) are found relative to the program that reads
# them: <folder of the program>/COLLC_DATA_RELDIR (targets/sg2260/
# machine_find.c). The build tree has the installed layout around its
# programs: collc in build/compiler, the other installed programs in
# COLLC_BUILD_BINDIR, and collc_stage_data copies data files to
# <each of them>/COLLC_DATA_RELDIR (build/share/collc with the default dirs).
file(RELATIVE_PATH COLLC_DATA_RELDIR ${CMAKE_INSTALL_FULL_BINDIR}
     ${CMAKE_INSTALL_FULL_DATADIR}/collc)
set(COLLC_BUILD_BINDIR ${PROJECT_BINARY_DIR}/bin)
set(COLLC_BUILD_DATA_DIRS "")
foreach(_d ${PROJECT_BINARY_DIR}/compiler ${COLLC_BUILD_BINDIR})
  get_filename_component(_d "${_d}/${COLLC_DATA_RELDIR}" ABSOLUTE)
  list(APPEND COLLC_BUILD_DATA_DIRS ${_d})
endforeach()
list(REMOVE_DUPLICATES COLLC_BUILD_DATA_DIRS)

# collc_stage_data(<subdir> <file>...): installs the files into
# share/collc/<subdir> and copies them there in the build tree.
function(collc_stage_data subdir)
  install(FILES ${ARGN} DESTINATION ${CMAKE_INSTALL_DATADIR}/collc/${subdir})
  foreach(_d ${COLLC_BUILD_DATA_DIRS})
    foreach(_f ${ARGN})
      get_filename_component(_n ${_f} NAME)
      configure_file(${_f} ${_d}/${subdir}/${_n} COPYONLY)
    endforeach()
  endforeach()
endfunction()

# collc_install_runtime(<target> <export-name> <runtime> <libdir>)
# Exports a runtime library as collc::<export-name> and installs it into
# <libdir>. <runtime> names the transport its objects implement (cpu,
# mpi_openmpi, ...): every runtime defines the same transport-ABI functions
# of coll.h (coll_begin, coll_send, ...), so a program can hold only one.
# The INTERFACE_COLLC_RUNTIME property, compared by CMake across everything
# a target links (COMPATIBLE_INTERFACE_STRING), turns linking two of them
# into a configure error instead of a program that calls the wrong one.
function(collc_install_runtime tgt export_name runtime libdir)
  set_target_properties(${tgt} PROPERTIES EXPORT_NAME ${export_name}
                        INTERFACE_COLLC_RUNTIME ${runtime})
  set_property(TARGET ${tgt} APPEND PROPERTY COMPATIBLE_INTERFACE_STRING COLLC_RUNTIME)
  target_include_directories(${tgt} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  install(TARGETS ${tgt} EXPORT collcTargets
          LIBRARY DESTINATION ${libdir}
          ARCHIVE DESTINATION ${libdir})
endfunction()

# The package and the data: called at the end of the top-level
# CMakeLists.txt, once every target exists.
function(collc_install_package)
  # The shipped algorithms (`collc compare` against them, examples to start
  # from) and the documentation, with the relative links between its pages.
  # Staged in the build tree as well: the last folder `import` searches.
  file(GLOB_RECURSE _examples CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}
       ${PROJECT_SOURCE_DIR}/dsl-examples/*.coll)
  set(_example_dirs "")
  foreach(_f ${_examples})
    get_filename_component(_d ${_f} DIRECTORY)
    list(APPEND _example_dirs ${_d})
  endforeach()
  list(REMOVE_DUPLICATES _example_dirs)
  foreach(_d ${_example_dirs})
    file(GLOB _in_d CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${_d}/*.coll)
    collc_stage_data(${_d} ${_in_d})
  endforeach()
  install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CONTRIBUTING.md
          DESTINATION ${CMAKE_INSTALL_DOCDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
          FILES_MATCHING PATTERN "*.md")
  install(FILES ${PROJECT_SOURCE_DIR}/bench/RESULTS.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/bench)

  set(_pkgdir ${CMAKE_INSTALL_LIBDIR}/cmake/collc)
  install(EXPORT collcTargets NAMESPACE collc:: DESTINATION ${_pkgdir}
          FILE collcTargets.cmake)
  set(COLLC_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/collc)
  set(COLLC_CONFIG_MPIEXEC "")
  foreach(_f ${COLLC_MPI_FLAVOURS})
    string(APPEND COLLC_CONFIG_MPIEXEC "set(COLLC_MPI_${_f}_MPIEXEC \"${COLLC_MPI_${_f}_MPIRUN}\")\n")
  endforeach()
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/collcConfig.cmake.in
    ${PROJECT_BINARY_DIR}/cmake/collcConfig.cmake
    INSTALL_DESTINATION ${_pkgdir}
    PATH_VARS COLLC_INSTALL_DATADIR)
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/collcConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/cmake/collcConfig.cmake
                ${PROJECT_BINARY_DIR}/cmake/collcConfigVersion.cmake
                ${PROJECT_SOURCE_DIR}/cmake/CollcFunctions.cmake
          DESTINATION ${_pkgdir})
endfunction()
