#!/bin/bash
ssh -p 2222 root@gpu-1 "pkill -f sglang; cat > /w/run.sh << 'EOF'
export X=$1
exec python3 -m sglang.launch_server --port $2
EOF
chmod +x /w/run.sh && echo ok"
echo done
