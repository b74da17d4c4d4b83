# QSA_NUMPY_PYTHON: a python3 that imports NumPy (Debian python3-numpy), for the worker module's
# tests and the NumPy example worker; empty when there is none (those tests are then skipped, 77).
set(QSA_NUMPY_PYTHON "")
foreach(candidate python3 /usr/bin/python3)
  execute_process(COMMAND ${candidate} -c "import numpy" RESULT_VARIABLE no_numpy OUTPUT_QUIET ERROR_QUIET)
  if(no_numpy EQUAL 0)
    set(QSA_NUMPY_PYTHON ${candidate})
    break()
  endif()
endforeach()
if(NOT QSA_NUMPY_PYTHON)
  message(STATUS "No python3 with NumPy: the worker module's tests will be skipped (apt-get install python3-numpy)")
endif()
