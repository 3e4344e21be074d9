/* The CPUs a control group's quota gives the process (a container's
 * `docker --cpus`, a Kubernetes CPU limit), which no affinity mask shows:
 * a process with a quota of 2 CPUs on a 64-core host that starts 64
 * threads is throttled for most of each period. */
#ifndef GI_CGROUP_CPUS_H
#define GI_CGROUP_CPUS_H

/* The least ceil(quota / period) along the process's control groups and
 * their ancestors, or 0 where no quota limits them (or none can be read).
 * `root`: where the control group file systems are mounted
 * ("/sys/fs/cgroup"); `cgroups`: the text of /proc/self/cgroup. Version 2
 * reads cpu.max ("max PERIOD" or "QUOTA PERIOD") under root (or under
 * root/unified, beside version 1's controllers); version 1 reads the cpu
 * controller's cpu.cfs_quota_us (-1: none) and cpu.cfs_period_us under
 * root/cpu. A group's directory that is not there (a container that
 * mounts its own group at the root) is skipped, and the root is read
 * last. A file whose text is not a quota is ignored. */
int gi__cgroup_cpu_limit(const char *root, const char *cgroups);

/* The same for this process: /proc/self/cgroup under /sys/fs/cgroup. */
int gi__process_cgroup_cpu_limit(void);

#endif
