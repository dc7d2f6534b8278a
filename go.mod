module gcdbg

go 1.26
