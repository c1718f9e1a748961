module example.com/perflab-examples

go 1.21
