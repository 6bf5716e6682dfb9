/* allocore/export.h — marks the public API. The libraries are built with hidden symbols, so
 * that a shared build exports exactly what the public headers declare. C-compatible (C89 and
 * later). */
#ifndef ALLOCORE_EXPORT_H_
#define ALLOCORE_EXPORT_H_

#if defined(__GNUC__) || defined(__clang__)
#define ALLOCORE_EXPORT __attribute__((visibility("default")))
#else
#define ALLOCORE_EXPORT
#endif

#endif /* ALLOCORE_EXPORT_H_ */
