locals {
  gpu_labels = {
    accelerator = "nvidia"
  }
}

resource "aws_eks_node_group" "gpu" {
  cluster_name    = aws_eks_cluster.this.name
  node_group_name = "gpu"
  node_role_arn   = aws_iam_role.node.arn
  subnet_ids      = data.aws_subnets.private.ids
  instance_types  = [var.gpu_instance_type]
  ami_type        = "AL2023_x86_64_NVIDIA"
  capacity_type   = var.spot ? "SPOT" : "ON_DEMAND"
  labels          = local.gpu_labels

  taint {
    key    = "nvidia.com/gpu"
    value  = "true"
    effect = "NO_SCHEDULE"
  }

  scaling_config {
    desired_size = 0
    min_size     = 0
    max_size     = 4
  }
}

resource "aws_eks_node_group" "batch" {
  cluster_name    = aws_eks_cluster.this.name
  node_group_name = "batch"
  node_role_arn   = aws_iam_role.node.arn
  subnet_ids      = data.aws_subnets.private.ids
  ami_type        = "AL2023_ARM_64_STANDARD"
  instance_types  = ["m7g.xlarge", "m6g.xlarge"]

  labels = {
    team        = "data"
    cost-center = var.cost_center
  }

  dynamic "taint" {
    for_each = var.batch_taints
    content {
      key    = taint.value.key
      value  = taint.value.value
      effect = taint.value.effect
    }
  }
}

# Its taint comes from another resource: not known before apply. The
# group joins the inventory with what is known (its EKS labels); a pod
# that only it could take is not judged.
resource "aws_eks_node_group" "tenant" {
  cluster_name    = aws_eks_cluster.this.name
  node_group_name = "tenant"
  node_role_arn   = aws_iam_role.node.arn
  subnet_ids      = data.aws_subnets.private.ids

  taint {
    key    = "tenant"
    value  = random_pet.tenant.id
    effect = "NO_EXECUTE"
  }
}

# Not created: count is 0.
resource "aws_eks_node_group" "legacy" {
  count           = 0
  cluster_name    = aws_eks_cluster.this.name
  node_group_name = "legacy"
  node_role_arn   = aws_iam_role.node.arn
  subnet_ids      = data.aws_subnets.private.ids
}
