module allocore.dev/allocore

go 1.19
