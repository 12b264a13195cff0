module firstlegal

go 1.19
