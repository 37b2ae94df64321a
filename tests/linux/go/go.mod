module uaccess.test/gorun

go 1.19
