# cmake -P script for the package test: install the build tree into a scratch prefix, configure
# and build the consumer against that prefix alone, and run it. Any failing step fails the test.
file(REMOVE_RECURSE ${CKPT_WORK_DIR})
function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "step failed (${result}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()
run_step(${CMAKE_COMMAND} --install ${CKPT_BUILD_DIR} --prefix ${CKPT_WORK_DIR}/prefix)
if(NOT EXISTS ${CKPT_WORK_DIR}/prefix/bin/ckptsim)
  message(FATAL_ERROR "the install did not place bin/ckptsim")
endif()
run_step(${CMAKE_COMMAND} -S ${CKPT_CONSUMER_DIR} -B ${CKPT_WORK_DIR}/consumer
         -DCMAKE_PREFIX_PATH=${CKPT_WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release)
run_step(${CMAKE_COMMAND} --build ${CKPT_WORK_DIR}/consumer)
run_step(${CKPT_WORK_DIR}/consumer/consumer)
