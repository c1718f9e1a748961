module perflab.dev/go

go 1.21
