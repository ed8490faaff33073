# make uninstall: remove every file that installed.txt lists (what the
# last `cmake --install` of this build put in place, DESTDIR included),
# then the folders of the project's own names
# (.../pcie_telemetry, .../pcie-telemetry and below) that are left empty.
# Folders shared with other software (bin, lib, share/man/man1) stay.
#   cmake -DMANIFEST=build/installed.txt -P cmake/uninstall.cmake
if(NOT EXISTS "${MANIFEST}")
  message(FATAL_ERROR "uninstall: ${MANIFEST} does not exist: nothing was installed from this build")
endif()
file(STRINGS "${MANIFEST}" files)
set(removed 0)
set(dirs "")
foreach(f ${files})
  if(IS_SYMLINK "${f}" OR EXISTS "${f}")
    file(REMOVE "${f}")
    math(EXPR removed "${removed} + 1")
  endif()
  get_filename_component(d "${f}" DIRECTORY)
  list(APPEND dirs "${d}")
endforeach()
list(REMOVE_DUPLICATES dirs)
# Up from each file's folder while it is empty: the last file of a folder
# takes the folder with it.
foreach(d ${dirs})
  while(d MATCHES "/pcie[-_]telemetry(/|$)")
    file(GLOB left "${d}/*" "${d}/.*")
    if(left OR NOT IS_DIRECTORY "${d}")
      break()
    endif()
    file(REMOVE_RECURSE "${d}")
    get_filename_component(d "${d}" DIRECTORY)
  endwhile()
endforeach()
file(REMOVE "${MANIFEST}")
message(STATUS "uninstall: removed ${removed} files")
