// allocore_version in liballocore_c.so itself. The kernel defines it too (kernel/src/version.cc),
// but in a shared build that definition lives in liballocore.so, and a foreign caller links
// liballocore_c.so alone: the linker does not look through a library's own dependencies for a
// symbol the program uses. In a static build, this definition keeps the kernel's archive member
// out. Both return the project's version.
#include "allocore/version.h"

extern "C" const char* allocore_version(void) { return ALLOCORE_VERSION_STRING; }
