ssh h "cat > /f <<-'EOF'
	$1
	EOF
echo ok"
