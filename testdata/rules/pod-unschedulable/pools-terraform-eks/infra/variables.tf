variable "gpu_instance_type" {
  type    = string
  default = "g5.xlarge"
}

variable "batch_taints" {
  type = list(object({ key = string, value = string, effect = string }))
  default = [
    { key = "workload", value = "batch", effect = "NO_SCHEDULE" },
  ]
}

# No default, and no value in terraform.tfvars: unknown.
variable "cost_center" {
  type = string
}

variable "spot" {
  type    = bool
  default = false
}
