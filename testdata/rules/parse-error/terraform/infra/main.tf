resource "aws_eks_node_group" "bad" {
  cluster_name    = "prod"
  node_group_name = "bad"

  taint {
    key    = "dedicated"
    value  = "gpu"
    effect = "NoSchedule" # want "parse-error: \\Qunsupported taint effect \"NoSchedule\": Terraform takes NO_SCHEDULE, NO_EXECUTE or PREFER_NO_SCHEDULE\\E"
  }
}
