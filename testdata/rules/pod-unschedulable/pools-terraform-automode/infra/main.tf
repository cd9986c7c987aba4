module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 21.0"

  name = "prod"
  compute_config = {
    enabled    = true
    node_pools = ["system"]
  }
}
