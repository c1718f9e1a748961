module example.com/countwork

go 1.21
