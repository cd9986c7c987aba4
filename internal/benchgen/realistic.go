package benchgen

import (
	"bytes"
	"fmt"
	"math/rand/v2"
)

// The realistic corpus: what a GitOps repository of a few hundred services
// looks like. Workloads carry what real ones do (labels and annotations,
// a service account and security contexts, probes, env from literals,
// secrets and the downward API, volumes and their mounts, a sidecar or an
// init container for some) and a Service beside most of them; nodes are
// what `kubectl get nodes -o yaml` prints (capacity, conditions, addresses,
// node info, images), and every pool spreads over three zones and one to
// three instance types, so a pool is about six node groups.

// families are instance types by size, with the allocatable a node of
// each type reports (cpu in millicores, memory in Ki).
var families = [][]struct {
	name     string
	cpuMilli int
	memKi    int
}{
	{{"m6i.xlarge", 3920, 14_902_104}, {"m6a.xlarge", 3920, 14_902_104}, {"m5.xlarge", 3920, 14_954_304}},
	{{"m6i.2xlarge", 7910, 31_532_888}, {"m6a.2xlarge", 7910, 31_532_888}, {"m5.2xlarge", 7910, 31_585_088}},
	{{"m6i.4xlarge", 15890, 63_926_104}, {"r6i.2xlarge", 7910, 64_299_864}, {"c6i.4xlarge", 15890, 31_532_888}},
}

// realisticTypes are the instance types of pool i: one to three of its
// size class.
func realisticTypes(i int) []int {
	n := 1 + i%3
	idx := make([]int, n)
	for j := range idx {
		idx[j] = (i + j) % 3
	}
	return idx
}

func realisticNodes(s Spec, ps []pool) []byte {
	var b bytes.Buffer
	b.Grow(s.Nodes * 3000)
	b.WriteString("apiVersion: v1\nitems:\n")
	for i := 0; i < s.Nodes; i++ {
		pi := i % len(ps)
		p := ps[pi]
		types := realisticTypes(pi)
		round := i / len(ps)
		zone := 'a' + rune(round%3)
		it := families[pi%3][types[(round/3)%len(types)]]
		name := fmt.Sprintf("ip-10-%d-%d-%d.eu-west-1.compute.internal", pi, (i/250)%250, i%250)
		fmt.Fprintf(&b, `- apiVersion: v1
  kind: Node
  metadata:
    annotations:
      alpha.kubernetes.io/provided-node-ip: 10.%[2]d.%[3]d.%[4]d
      node.alpha.kubernetes.io/ttl: "0"
      volumes.kubernetes.io/controller-managed-attach-detach: "true"
    creationTimestamp: "2026-10-%02[5]dT08:%02[6]d:11Z"
    labels:
      beta.kubernetes.io/arch: amd64
      beta.kubernetes.io/instance-type: %[7]s
      beta.kubernetes.io/os: linux
      eks.amazonaws.com/capacityType: ON_DEMAND
      eks.amazonaws.com/nodegroup: %[8]s
      failure-domain.beta.kubernetes.io/region: eu-west-1
      failure-domain.beta.kubernetes.io/zone: eu-west-1%[9]c
      kubernetes.io/arch: amd64
      kubernetes.io/hostname: %[1]s
      kubernetes.io/os: linux
      node.kubernetes.io/instance-type: %[7]s
      pool: %[8]s
      topology.ebs.csi.aws.com/zone: eu-west-1%[9]c
      topology.kubernetes.io/region: eu-west-1
      topology.kubernetes.io/zone: eu-west-1%[9]c
    name: %[1]s
    resourceVersion: "%[10]d"
    uid: 6f1c%04[11]x-0d1e-4b6a-9c1f-%012[12]x
  spec:
    providerID: aws:///eu-west-1%[9]c/i-0%016[12]x
`, name, pi, (i/250)%250, i%250, 1+i%28, i%60, it.name, p.name, zone, 100000+i*7, i%65536, i)
		if p.taint != "" {
			key, value, effect := splitTaint(p.taint)
			fmt.Fprintf(&b, "    taints:\n    - effect: %s\n      key: %s\n      value: %q\n", effect, key, value)
		}
		cpuCap := (it.cpuMilli + 999) / 1000
		fmt.Fprintf(&b, `  status:
    addresses:
    - address: 10.%[1]d.%[2]d.%[3]d
      type: InternalIP
    - address: %[4]s
      type: InternalDNS
    - address: %[4]s
      type: Hostname
    allocatable:
      cpu: %[5]dm
      ephemeral-storage: "95491281146"
      hugepages-1Gi: "0"
      hugepages-2Mi: "0"
      memory: %[6]dKi
      pods: "58"
`, pi, (i/250)%250, i%250, name, it.cpuMilli, it.memKi)
		if p.gpu {
			b.WriteString("      nvidia.com/gpu: \"4\"\n")
		}
		fmt.Fprintf(&b, `    capacity:
      cpu: "%[1]d"
      ephemeral-storage: 104845292Ki
      hugepages-1Gi: "0"
      hugepages-2Mi: "0"
      memory: %[2]dKi
      pods: "58"
    conditions:
`, cpuCap, it.memKi+700_000)
		for _, c := range []struct{ typ, status, reason, msg string }{
			{"MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
			{"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
			{"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
			{"Ready", "True", "KubeletReady", "kubelet is posting ready status"},
		} {
			fmt.Fprintf(&b, "    - lastHeartbeatTime: \"2026-11-24T10:12:41Z\"\n      lastTransitionTime: \"2026-10-02T08:13:02Z\"\n      message: %s\n      reason: %s\n      status: \"%s\"\n      type: %s\n", c.msg, c.reason, c.status, c.typ)
		}
		fmt.Fprintf(&b, `    daemonEndpoints:
      kubeletEndpoint:
        Port: 10250
    images:
    - names:
      - 602401143452.dkr.ecr.eu-west-1.amazonaws.com/amazon-k8s-cni@sha256:%[1]s
      - 602401143452.dkr.ecr.eu-west-1.amazonaws.com/amazon-k8s-cni:v1.19.2
      sizeBytes: 45823412
    - names:
      - 602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/kube-proxy@sha256:%[1]s
      - 602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/kube-proxy:v1.37.0-eksbuild.2
      sizeBytes: 30125001
    nodeInfo:
      architecture: amd64
      bootID: 0b7c%08[2]x-1c2d-4e5f-8a9b-%012[2]x
      containerRuntimeVersion: containerd://2.1.4
      kernelVersion: 6.12.40-63.114.amzn2023.x86_64
      kubeProxyVersion: ""
      kubeletVersion: v1.37.0-eks-3abbec1
      machineID: ec2%029[2]x
      operatingSystem: linux
      osImage: Amazon Linux 2023.9.20251110
      systemUUID: ec2%05[2]x-aaaa-bbbb-cccc-%012[2]x
`, "8c1f3e2d9b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e", i)
	}
	b.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	return b.Bytes()
}

var realisticKinds = []string{"Deployment", "Deployment", "Deployment", "Deployment", "StatefulSet", "Job", "CronJob", "DaemonSet", "Pod", "ConfigMap", "Service", "Service", "Service"}

// writeRealisticDoc writes document number i of the realistic corpus.
func writeRealisticDoc(b *bytes.Buffer, r *rand.Rand, ps []pool, s Spec, i int) {
	kind := realisticKinds[r.IntN(len(realisticKinds))]
	// Services and ConfigMaps belong to the workload written just before.
	name := fmt.Sprintf("app-%06d", i)
	ns := fmt.Sprintf("team-%03d", i%100)
	labels := fmt.Sprintf("app.kubernetes.io/name: %[1]s\napp.kubernetes.io/instance: %[1]s\napp.kubernetes.io/part-of: team-%03[2]d\napp.kubernetes.io/managed-by: argocd\n", name, i%100)
	switch kind {
	case "ConfigMap":
		fmt.Fprintf(b, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-config\n  namespace: %s\n  labels:\n%sdata:\n  LOG_LEVEL: info\n  LOG_FORMAT: json\n  HTTP_PORT: \"8080\"\n  METRICS_PORT: \"9090\"\n  FEATURE_FLAGS: \"search,checkout-v2,recommendations\"\n  application.yaml: |\n    server:\n      port: 8080\n      shutdown: graceful\n    management:\n      endpoints:\n        web:\n          exposure:\n            include: health,info,prometheus\n    cache:\n      ttl: %ds\n      size: %d\n    upstream:\n      url: http://app-%06d.%s.svc.cluster.local:8080\n      timeout: 2s\n      retries: 3\n",
			name, ns, indentLines(labels, "    "), 30*(r.IntN(10)+1), 1000*(r.IntN(10)+1), r.IntN(i+1), ns)
		return
	case "Service":
		fmt.Fprintf(b, "apiVersion: v1\nkind: Service\nmetadata:\n  name: %s\n  namespace: %s\n  labels:\n%s  annotations:\n    prometheus.io/scrape: \"true\"\n    prometheus.io/port: \"9090\"\nspec:\n  type: ClusterIP\n  selector:\n    app.kubernetes.io/name: %s\n    app.kubernetes.io/instance: %s\n  ports:\n  - name: http\n    port: 80\n    targetPort: http\n    protocol: TCP\n  - name: metrics\n    port: 9090\n    targetPort: metrics\n    protocol: TCP\n",
			name, ns, indentLines(labels, "    "), name, name)
		return
	}
	p, mistake := pick(r, ps, s)
	podMeta := fmt.Sprintf("annotations:\n  prometheus.io/scrape: \"true\"\n  prometheus.io/port: \"9090\"\n  checksum/config: %016x%016x\n", r.Uint64(), r.Uint64())
	indent := writeHeader(b, r, kind, name, ns, podMeta)
	fmt.Fprintf(b, "%sserviceAccountName: %s\n%sterminationGracePeriodSeconds: %d\n%ssecurityContext:\n%s  runAsNonRoot: true\n%s  runAsUser: 10001\n%s  fsGroup: 10001\n%s  seccompProfile:\n%s    type: RuntimeDefault\n",
		indent, name, indent, 30*(r.IntN(4)+1), indent, indent, indent, indent, indent, indent)
	writeSelector(b, r, p, kind, indent, mistake)
	if kind != "DaemonSet" && r.IntN(10) == 0 {
		// Some workloads also prefer a zone or pin instance types.
		fmt.Fprintf(b, "%stopologySpreadConstraints:\n%s- maxSkew: 1\n%s  topologyKey: topology.kubernetes.io/zone\n%s  whenUnsatisfiable: ScheduleAnyway\n%s  labelSelector:\n%s    matchLabels:\n%s      app.kubernetes.io/name: %s\n",
			indent, indent, indent, indent, indent, indent, indent, name)
	}
	if r.IntN(5) == 0 {
		fmt.Fprintf(b, "%sinitContainers:\n%s- name: migrate\n%s  image: registry.example.com/%s-migrate:1.%d\n%s  command: [\"/app/migrate\", \"--wait-for-db\", \"--timeout=120s\"]\n%s  resources:\n%s    requests: {cpu: 50m, memory: 64Mi}\n%s    limits: {memory: 128Mi}\n",
			indent, indent, indent, name, r.IntN(20), indent, indent, indent, indent)
	}
	cpu, mem := requests(r, p, mistake)
	fmt.Fprintf(b, "%scontainers:\n", indent)
	writeMainContainer(b, r, p, indent, name, cpu, mem)
	if r.IntN(3) == 0 {
		fmt.Fprintf(b, "%s- name: log-shipper\n%s  image: registry.example.com/fluent-bit:3.2.%d\n%s  args: [\"--config=/fluent-bit/etc/fluent-bit.yaml\"]\n%s  resources:\n%s    requests: {cpu: 20m, memory: 32Mi}\n%s    limits: {memory: 64Mi}\n%s  volumeMounts:\n%s  - {name: logs, mountPath: /var/log/app, readOnly: true}\n",
			indent, indent, r.IntN(10), indent, indent, indent, indent, indent, indent)
	}
	fmt.Fprintf(b, "%svolumes:\n%s- name: config\n%s  configMap:\n%s    name: %s-config\n%s- name: secrets\n%s  secret:\n%s    secretName: %s-secrets\n%s    defaultMode: 0440\n%s- name: tmp\n%s  emptyDir: {}\n%s- name: logs\n%s  emptyDir:\n%s    sizeLimit: 1Gi\n",
		indent, indent, indent, indent, name, indent, indent, indent, name, indent, indent, indent, indent, indent, indent)
	writeTolerations(b, r, p, indent, mistake)
}

func gpuLimit(p pool) string {
	if p.gpu {
		return `, nvidia.com/gpu: "1"`
	}
	return ""
}

// writeMainContainer writes the application container of a workload.
func writeMainContainer(b *bytes.Buffer, r *rand.Rand, p pool, indent, name string, cpu, mem int) {
	c := indent + "  "
	fmt.Fprintf(b, `%[1]s- name: app
%[2]simage: registry.example.com/%[3]s:1.%[4]d.%[5]d
%[2]simagePullPolicy: IfNotPresent
%[2]sargs: ["--config=/etc/app/application.yaml", "--port=8080", "--metrics-port=9090"]
%[2]sports:
%[2]s- {name: http, containerPort: 8080, protocol: TCP}
%[2]s- {name: metrics, containerPort: 9090, protocol: TCP}
%[2]senv:
%[2]s- {name: APP_NAME, value: %[3]s}
%[2]s- name: POD_NAME
%[2]s  valueFrom:
%[2]s    fieldRef: {fieldPath: metadata.name}
%[2]s- name: POD_NAMESPACE
%[2]s  valueFrom:
%[2]s    fieldRef: {fieldPath: metadata.namespace}
%[2]s- name: DATABASE_PASSWORD
%[2]s  valueFrom:
%[2]s    secretKeyRef: {name: %[3]s-secrets, key: db-password}
%[2]s- {name: JAVA_TOOL_OPTIONS, value: "-XX:MaxRAMPercentage=75 -XX:+UseG1GC"}
%[2]senvFrom:
%[2]s- configMapRef: {name: %[3]s-config}
%[2]sresources:
%[2]s  requests: {cpu: %[6]dm, memory: %[7]dMi}
%[2]s  limits: {memory: %[8]dMi%[9]s}
`, indent, c, name, r.IntN(20), r.IntN(50), cpu, mem, 2*mem, gpuLimit(p))
	fmt.Fprintf(b, `%[1]slivenessProbe:
%[1]s  httpGet: {path: /healthz, port: http}
%[1]s  initialDelaySeconds: 10
%[1]s  periodSeconds: 10
%[1]s  failureThreshold: 3
%[1]sreadinessProbe:
%[1]s  httpGet: {path: /ready, port: http}
%[1]s  periodSeconds: 5
%[1]sstartupProbe:
%[1]s  httpGet: {path: /healthz, port: http}
%[1]s  failureThreshold: 30
%[1]s  periodSeconds: 2
%[1]ssecurityContext:
%[1]s  allowPrivilegeEscalation: false
%[1]s  readOnlyRootFilesystem: true
%[1]s  capabilities: {drop: [ALL]}
%[1]svolumeMounts:
%[1]s- {name: config, mountPath: /etc/app, readOnly: true}
%[1]s- {name: secrets, mountPath: /etc/secrets, readOnly: true}
%[1]s- {name: tmp, mountPath: /tmp}
%[1]s- {name: logs, mountPath: /var/log/app}
`, c)
}
