variable "gpu_taint_value" {
  default = "present"
}
