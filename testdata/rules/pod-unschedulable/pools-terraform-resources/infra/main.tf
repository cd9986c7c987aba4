resource "aws_eks_node_group" "general" {
  cluster_name    = "prod"
  node_group_name = "general"
  instance_types  = ["m6i.large", "m6i.xlarge"]
  scaling_config {
    desired_size = 2
    max_size     = 4
    min_size     = 1
  }
}

resource "aws_eks_node_group" "gpu" {
  cluster_name    = "prod"
  node_group_name = "gpu"
  instance_types  = ["g5.xlarge"]
  ami_type        = "AL2023_x86_64_NVIDIA"
  labels          = { workload = "gpu" }
  scaling_config {
    desired_size = 1
    max_size     = 2
    min_size     = 0
  }
}
