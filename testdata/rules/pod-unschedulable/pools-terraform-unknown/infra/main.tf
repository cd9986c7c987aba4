# No default and no value in terraform.tfvars: unknown.
variable "tenant_taints" {
  type = list(object({ key = string, value = string, effect = string }))
}

variable "shared_labels" {
  type = map(string)
}

variable "capacity_type" {
  type = string
}

# Its taints are a variable with no value: any taint may be on its nodes.
resource "aws_eks_node_group" "tenant" {
  cluster_name    = "prod"
  node_group_name = "tenant"
  node_role_arn   = "arn:aws:iam::111122223333:role/node"
  subnet_ids      = ["subnet-1"]
  labels          = { team = "tenant" }

  dynamic "taint" {
    for_each = var.tenant_taints
    content {
      key    = taint.value.key
      value  = taint.value.value
      effect = taint.value.effect
    }
  }
}

# Its labels are a variable with no value: any label may be on its nodes.
resource "aws_eks_node_group" "shared" {
  cluster_name    = "prod"
  node_group_name = "shared"
  node_role_arn   = "arn:aws:iam::111122223333:role/node"
  subnet_ids      = ["subnet-1"]
  labels          = var.shared_labels
}

# Spot or on-demand is a variable with no value: the label
# eks.amazonaws.com/capacityType has a value not known.
resource "aws_eks_node_group" "spot" {
  cluster_name    = "prod"
  node_group_name = "spot"
  node_role_arn   = "arn:aws:iam::111122223333:role/node"
  subnet_ids      = ["subnet-1"]
  capacity_type   = var.capacity_type
  labels          = { pool = "spot" }

  taint {
    key    = "spot"
    value  = "true"
    effect = "NO_SCHEDULE"
  }
}
