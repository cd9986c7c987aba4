package main

warn contains msg if {
	input.kind == "Pod"
	msg := "conftest style"
}
