module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"

  cluster_name = "prod"

  # Before v21 the module takes defaults for every group.
  eks_managed_node_group_defaults = {
    ami_type = "AL2023_x86_64_STANDARD"
    labels   = { managed-by = "terraform" }
  }

  eks_managed_node_groups = {
    system = {
      instance_types = ["m6i.large"]
      labels         = { role = "system" }
      taints = {
        addons = {
          key    = "CriticalAddonsOnly"
          value  = "true"
          effect = "NO_SCHEDULE"
        }
      }
    }
    general = {
      name            = "general"
      use_name_prefix = false
      instance_types  = ["m6i.xlarge"]
      capacity_type   = "SPOT"
    }
  }
}
