/* tests/support/two_leaves_yaml.h — the queues.yaml the tests of the C ABI create kernels with:
 * root.a and root.b under a root anyone may submit to, in one line of flow-style YAML. Plain C,
 * so that the test compiled as C (tests/c) and the C++ ones (support/c_abi.h) share it. */
#ifndef ALLOCORE_TESTS_SUPPORT_TWO_LEAVES_YAML_H_
#define ALLOCORE_TESTS_SUPPORT_TWO_LEAVES_YAML_H_

#define ALLOCORE_TEST_TWO_LEAVES_YAML                                                         \
  "partitions: [{name: default, queues: [{name: root, submitacl: \"*\", queues: [{name: a}, " \
  "{name: b}]}]}]"

#endif /* ALLOCORE_TESTS_SUPPORT_TWO_LEAVES_YAML_H_ */
